// Loaded with `node --import` into a process a benchmark measures (the fleet): on SIGUSR2 it
// writes the V8 heap figures as one JSON line to fd 3, a pipe the benchmark opened for it, so
// they can be read from outside like the RSS in /proc. It does nothing else.
import { writeSync } from 'node:fs';

process.on('SIGUSR2', () => {
  const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  writeSync(3, `${JSON.stringify({ heapUsed, heapTotal, external, arrayBuffers })}\n`);
});
