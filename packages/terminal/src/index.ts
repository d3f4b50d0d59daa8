export { formatTable } from './table.ts';
