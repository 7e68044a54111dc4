/** cckit, the research library: `require('cckit')` from Node or a tslab notebook cell. */
export * as metrics from './metrics';
export { formatTable } from './report/table';
