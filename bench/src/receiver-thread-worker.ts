// The sample receiver on its own thread (receiver-thread.ts): posts its URL, then its arrivals,
// without headers or bodies, every few milliseconds.
import { parentPort, workerData } from 'node:worker_threads';
import { SampleReceiver } from '@hookstream/receiver';

const port = parentPort;
if (port === null) throw new Error('receiver-thread-worker.ts runs as a worker thread');
const receiver = new SampleReceiver({ secret: (workerData as { secret: string }).secret, record: true });
port.postMessage({ url: await receiver.listen(0) });
let sent = 0;
setInterval(() => {
  const fresh = receiver.arrivals.slice(sent);
  if (fresh.length === 0) return;
  sent += fresh.length;
  port.postMessage({
    arrivals: fresh.map(({ atMs, status, eventId, subscriptionId }) => ({
      atMs,
      status,
      eventId,
      subscriptionId,
    })),
  });
}, 5);
