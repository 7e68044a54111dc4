/** `cckit download`: reader → downloader (politeness, hashes) → resizer → shard writer, spread by the distributor. */
export { download, DEFAULT_POLICY, type DownloadOptions, type DownloadProgress, type DownloadSummary } from './distributor';
export { downloadShard, retryFailedRows, checkDoneShard, type FetchPolicy } from './downloader';
export { HashTable } from './hashes';
export { HostScheduler } from './politeness';
export { detectFormat, estimateInputRows, inputShards, readInputRows, INPUT_FORMATS, type InputFormat, type InputRow, type ReadInputOptions } from './reader';
export { DEFAULT_RESIZE, ENCODE_FORMATS, RESIZE_MODES, resizeImage, type EncodeFormat, type ResizeMode, type ResizeOptions } from './resizer';
