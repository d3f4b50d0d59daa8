#!/usr/bin/env node
// Node 24 runs the TypeScript sources directly (type stripping), so there is no build step.
import { quietKafkajsTimeoutWarning } from '@hookstream/kafka';
import { main } from '../src/main.ts';

quietKafkajsTimeoutWarning();
process.exitCode = await main(process.argv.slice(2));
