/**
 * A download process started by the distributor (distributor.ts, `processes` > 1): it builds its
 * own shard context (its own host scheduler and fetcher) and runs the shards it is sent.
 */
import { runJob, shardContext, type FromChild, type ToChild } from './distributor';
import type { ShardContext } from './downloader';

function send(message: FromChild): void {
  process.send?.(message);
}

let context: Promise<ShardContext> | undefined;
let ok = 0;
let failed = 0;
const flush = setInterval(() => {
  if (ok + failed === 0) return;
  send({ type: 'rows', ok, failed });
  ok = failed = 0;
}, 200);

process.on('message', (message: ToChild) => {
  if (message.type === 'init') {
    context = shardContext(message.settings, (success) => (success ? ok++ : failed++));
    return;
  }
  const { job } = message;
  context!
    .then((c) => runJob(job, c))
    .then(
      (result) => {
        send({ type: 'rows', ok, failed });
        ok = failed = 0;
        send({ type: 'done', result });
      },
      (err: Error) => send({ type: 'error', id: job.id, message: String(err.stack ?? err) }),
    );
});

// the distributor closed the channel (or died): finish nothing more
process.on('disconnect', () => {
  clearInterval(flush);
  process.exit(0);
});
