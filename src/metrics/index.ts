export * as bleu from './bleu';
export * as cider from './cider';
export * as meteor from './meteor';
export * as rouge from './rouge';
export * from './evaluate';
export * from './inputs';
export * from './retrieval';
export * from '../text/ptb-tokenizer';
export type { Candidates, MetricScore, MetricScores, References } from './types';
