/** The ecosystem's data formats: CC3M/CC12M TSV, img2dataset webdataset shards, COCO/nocaps JSON, Table 1 statistics. */
export * from './tsv';
export * from './webdataset';
export * from './coco';
export * from './stats';
export { fastTokenize } from '../text/fast-tokenizer';
