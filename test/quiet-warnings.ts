import { quietKafkajsTimeoutWarning } from '@hookstream/kafka';

// Test files import kafkajs directly through the facade; the same one warning is dropped as in
// the hookstream command.
quietKafkajsTimeoutWarning();
