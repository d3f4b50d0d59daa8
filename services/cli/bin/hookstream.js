#!/usr/bin/env node
// Node 24 runs the TypeScript sources directly (type stripping), so there is no build step.
// kafkajs's TimeoutNegativeWarning is silenced where kafkajs clients are made (@hookstream/kafka),
// so commands that never touch Kafka (help, receiver) do not load it.
import { main } from '../src/main.ts';

process.exitCode = await main(process.argv.slice(2));
