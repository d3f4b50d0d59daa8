// Imported first by the package's index: kafkajs captures these modules when it loads, so the
// replacements must be in Node's module cache before any module of this package imports it.
import { preloadRecordDecoder } from './record-decoder.ts';

preloadRecordDecoder();
