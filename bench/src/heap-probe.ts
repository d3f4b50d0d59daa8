// Loaded with `node --import` into a process a benchmark measures (the fleet): on SIGUSR2 it
// writes the V8 heap figures and the event loop's delay since the last ask as one JSON line to
// fd 3, a pipe the benchmark opened for it, so they can be read from outside like the RSS in
// /proc. It does nothing else.
import { writeSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const loop = monitorEventLoopDelay({ resolution: 20 });
loop.enable();

process.on('SIGUSR2', () => {
  const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  const loopP99Ns = loop.percentile(99);
  const loopMaxNs = loop.max;
  loop.reset();
  writeSync(3, `${JSON.stringify({ heapUsed, heapTotal, external, arrayBuffers, loopP99Ns, loopMaxNs })}\n`);
});
