import { createKafka } from '@hookstream/kafka';
const admin = createKafka({ brokers: ['127.0.0.1:9092'], clientId: 'x', quiet: true }).admin();
await admin.connect();
const t = await admin.listTopics(); const g = await admin.listGroupIds('');
console.log(t.length, 'topics', g.length, 'groups'); console.log(t.join(' ').slice(0, 3000)); console.log(g.join(' ').slice(0,2000));
await admin.disconnect();
