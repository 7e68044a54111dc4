/** cckit, the research library: `require('cckit')` from Node or a tslab notebook cell. */
export * as metrics from './metrics';
export * as data from './data';
export { World } from './world/world';
export { buildWorld } from './world/build';
export { formatTable } from './report/table';
export { show } from './notebook/display';
