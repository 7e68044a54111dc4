export * from './job';
export * from './local';
export * from './slurm';
export * from './bullmq';
export * from './worker-jobs';
