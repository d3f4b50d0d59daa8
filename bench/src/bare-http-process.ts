// The ingress's ceiling on HTTP alone: a bare node:http server that reads the body, parses it
// and answers 202 as the ingress does (keep-alive, JSON answer), with no validation, Avro or
// Kafka. Started by the benchmark in its own process; prints its URL on stdout once listening.
import { createServer } from 'node:http';

const ACCEPTED = JSON.stringify({ accepted: 1 });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-length': 0 }).end();
      return;
    }
    res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ACCEPTED) });
    res.end(ACCEPTED);
  });
});
// The ingress's default (INGRESS_KEEP_ALIVE_TIMEOUT_MS); the load generator reconnects after it.
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
