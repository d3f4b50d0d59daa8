#!/usr/bin/env node
// Node 24 runs the TypeScript sources directly (type stripping), so there is no build step.
// kafkajs is patched where it is loaded (@hookstream/kafka), so commands that never touch Kafka
// (help, receiver) do not load it.
import { enableCompileCache } from 'node:module';

// Node's compile cache keeps each module's type-stripped source and V8 code between runs. Warm, it
// spares every command the compile work, and Node never loads its TypeScript stripper (amaro, a
// WebAssembly module that stays resident: ~17 MB of an idle pusher's RSS). The cache lives in
// NODE_COMPILE_CACHE, else the OS temp dir; NODE_DISABLE_COMPILE_CACHE=1 turns it off. Entries are
// checked against the source, so an edited file is compiled again, never served stale.
enableCompileCache();

// Imported only now: a static import would load main.ts and its graph before the cache is on.
const { main } = await import('../src/main.ts');

process.exitCode = await main(process.argv.slice(2));
