/**
 * Real services for tests, started in a temporary folder and stopped at the end: a Redis server on a unix
 * socket (no TCP port) and a one-node Slurm cluster on loopback (munged, slurmctld, slurmd as children of this
 * process, every file in the folder, free ports). Debian's packages: `bash scripts/services-setup.sh`.
 *
 *   const redis = await startRedis(); t.after(() => redis.stop());
 *   new Worker(name, fn, { connection: { path: redis.socket } });   // BullMQ / ioredis
 *
 *   const slurm = await startSlurm(); t.after(() => slurm.stop());
 *   spawnSync('sbatch', ['--wait', ...], { env: slurm.env });         // SLURM_CONF points at the folder
 *
 * `serviceOrSkip(t, 'redis' | 'slurm')` skips a test (with the reason) where a service's programs are missing,
 * and fails it instead when `CI` is set. See docs/scale.md, "Services in tests".
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestContext } from 'node:test';

export type ServiceName = 'redis' | 'slurm';

/** The programs each service needs and the Debian package that has them. */
const PROGRAMS: Record<ServiceName, { program: string; pkg: string }[]> = {
  redis: [{ program: 'redis-server', pkg: 'redis-server' }],
  slurm: [
    { program: 'munged', pkg: 'munge' },
    { program: 'munge', pkg: 'munge' },
    { program: 'slurmctld', pkg: 'slurm-wlm (slurmctld)' },
    { program: 'slurmd', pkg: 'slurm-wlm (slurmd)' },
    { program: 'sbatch', pkg: 'slurm-wlm (slurm-client)' },
    { program: 'sinfo', pkg: 'slurm-wlm (slurm-client)' },
  ],
};

// Daemons live in /usr/sbin, which a non-root PATH often lacks.
const SEARCH_PATH = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin'].filter(Boolean);

/** The absolute path of a program, or undefined where it is not installed. */
export function findProgram(name: string): string | undefined {
  for (const dir of SEARCH_PATH) {
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Why a service cannot start here (which programs and packages are missing), or undefined when it can. */
export function missingService(service: ServiceName): string | undefined {
  const missing = PROGRAMS[service].filter((p) => !findProgram(p.program));
  if (!missing.length) return undefined;
  const pkgs = [...new Set(missing.map((p) => p.pkg))].join(', ');
  return `${service}: ${missing.map((p) => p.program).join(', ')} not found (Debian package ${pkgs}): run \`bash scripts/services-setup.sh\``;
}

export class ServiceMissingError extends Error {}

function need(service: ServiceName, program: string): string {
  const file = findProgram(program);
  if (!file) throw new ServiceMissingError(missingService(service) ?? `${program} not found: run \`bash scripts/services-setup.sh\``);
  return file;
}

/**
 * True when the service can start. Otherwise skips the test with the reason and returns false, or, with `CI`
 * set, throws (the test fails) so that CI never passes by skipping.
 */
export function serviceOrSkip(t: TestContext, service: ServiceName): boolean {
  const missing = missingService(service);
  if (!missing) return true;
  if (process.env.CI) throw new ServiceMissingError(`${missing} (CI is set, so this fails instead of skipping)`);
  t.skip(missing);
  return false;
}

// ---------------------------------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function tempDir(prefix: string): string {
  // Short: a unix socket's path must fit in 108 bytes.
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

function tail(file: string, lines = 20): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

interface Daemon {
  name: string;
  child: ChildProcess;
  log: string;
  exited: Promise<void>;
  exitCode(): number | string | null | undefined;
}

// Daemons still running when this process exits (a test that failed before its stop()) get SIGTERM then.
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGTERM');
});

/** Spawns a foreground daemon with stdout and stderr in `log`. */
function daemon(name: string, file: string, args: string[], log: string, env: NodeJS.ProcessEnv = process.env): Daemon {
  const fd = fs.openSync(log, 'a');
  const child = spawn(file, args, { stdio: ['ignore', fd, fd], env });
  fs.closeSync(fd);
  let code: number | string | null | undefined;
  live.add(child);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (c, signal) => {
      live.delete(child);
      code = c ?? signal;
      resolve();
    });
    child.once('error', (err) => {
      live.delete(child);
      code = err.message;
      resolve();
    });
  });
  return { name, child, log, exited, exitCode: () => code };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
async function stopDaemon(d: Daemon, graceMs = 5000): Promise<void> {
  if (d.exitCode() !== undefined) return;
  d.child.kill('SIGTERM');
  const timer = setTimeout(() => d.child.kill('SIGKILL'), graceMs);
  await d.exited;
  clearTimeout(timer);
}

/** Polls `ready` until it resolves true; throws with the daemons' logs when one exits or time runs out. */
async function waitFor(what: string, ready: () => Promise<boolean>, daemons: Daemon[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dead = daemons.find((d) => d.exitCode() !== undefined);
    if (dead) throw new Error(`${dead.name} exited (${String(dead.exitCode())}) before ${what}:\n${tail(dead.log)}`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}:\n${daemons.map((d) => `--- ${d.name}\n${tail(d.log)}`).join('\n')}`);
    }
    await sleep(100);
  }
}

/** Sends RESP commands over a unix socket and resolves with the raw reply once `done(reply)` holds. */
export function redisRaw(socket: string, commands: string[][], done: (reply: string) => boolean, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = net.createConnection(socket);
    let reply = '';
    const timer = setTimeout(() => {
      conn.destroy();
      reject(new Error(`no full reply from ${socket} in ${timeoutMs} ms: ${JSON.stringify(reply)}`));
    }, timeoutMs);
    conn.on('connect', () => {
      conn.write(commands.map((c) => `*${c.length}\r\n${c.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`).join(''));
    });
    conn.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (done(reply)) {
        clearTimeout(timer);
        conn.end();
        resolve(reply);
      }
    });
    conn.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

export interface RedisService {
  /** The unix socket: ioredis `{ path: socket }`, BullMQ `{ connection: { path: socket } }`. */
  socket: string;
  /** The same socket as an ioredis connection string: `new IORedis(url)` takes a bare absolute path. */
  url: string;
  dir: string;
  /** With `tls`: the TLS port on 127.0.0.1 and the PEM files (a CA, the client's certificate and key) a client needs. */
  tls?: { port: number; ca: string; cert: string; key: string };
  stop(): Promise<void>;
}

export interface RedisOptions {
  timeoutMs?: number;
  /**
   * An ACL user with every command on the keys that match `keys` (default `*`: all), and the default user
   * switched off: every connection must log in (AUTH user password), the unix socket too.
   */
  user?: { name: string; password: string; keys?: string };
  /**
   * Also listen with TLS on a free loopback port: a fresh CA (openssl, EC P-256, one day) signs the server's
   * certificate (127.0.0.1, localhost) and a client certificate, which the server asks for (Redis's default
   * tls-auth-clients yes).
   */
  tls?: boolean;
}

/** The TLS files of a test Redis: ca.crt, server.crt/key, client.crt/key in `dir`. */
async function makeCertificates(dir: string): Promise<{ ca: string; cert: string; key: string; serverCert: string; serverKey: string }> {
  const openssl = findProgram('openssl');
  if (!openssl) throw new ServiceMissingError('redis with TLS: openssl not found (Debian package openssl)');
  const f = (name: string) => path.join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const step = async (args: string[]) => {
    const r = await run(openssl, args, process.env, 10_000);
    if (r.code !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
  };
  await step(['req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.crt'), '-subj', '/CN=cckit test CA', '-days', '1']);
  fs.writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  for (const [name, ext] of [
    ['server', ['-extfile', f('server.ext')]],
    ['client', []],
  ] as const) {
    await step(['req', ...ec, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=cckit test ${name}`]);
    await step([
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f('ca.crt'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-out',
      f(`${name}.crt`),
      '-days',
      '1',
      ...ext,
    ]);
  }
  return { ca: f('ca.crt'), cert: f('client.crt'), key: f('client.key'), serverCert: f('server.crt'), serverKey: f('server.key') };
}

/** A Redis server on a unix socket in a fresh temporary folder, no TCP port (with `tls`: a TLS port on loopback), no persistence. */
export async function startRedis(options: RedisOptions = {}): Promise<RedisService> {
  const server = need('redis', 'redis-server');
  const dir = tempDir('cckit-redis-');
  const socket = path.join(dir, 'redis.sock');
  const args = ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--dir', dir];
  if (options.user)
    args.push('--user', options.user.name, 'on', `>${options.user.password}`, `~${options.user.keys ?? '*'}`, '&*', '+@all', '--user', 'default', 'off');
  let tls: RedisService['tls'];
  if (options.tls) {
    try {
      const files = await makeCertificates(dir);
      const [port] = await freePorts(1);
      args.push('--tls-port', String(port), '--tls-cert-file', files.serverCert, '--tls-key-file', files.serverKey, '--tls-ca-cert-file', files.ca);
      tls = { port, ca: files.ca, cert: files.cert, key: files.key };
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }
  const d = daemon('redis-server', server, args, path.join(dir, 'redis.log'));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await stopDaemon(d);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const login = options.user ? [['AUTH', options.user.name, options.user.password]] : [];
  try {
    await waitFor(
      'redis to answer PING',
      async () => (await redisRaw(socket, [...login, ['PING']], (r) => r.split('\r\n').length > login.length + 1, 500)).endsWith('+PONG\r\n'),
      [d],
      options.timeoutMs ?? 10_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { socket, url: socket, dir, ...(tls ? { tls } : {}), stop };
}

// ---------------------------------------------------------------------------------------------------------

function run(file: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 5000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Free TCP ports on 127.0.0.1 (held together while picking so they differ). */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const s = net.createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}

export interface SlurmService {
  /** process.env plus SLURM_CONF (and /usr/sbin on PATH): pass to sbatch, squeue, scancel, sinfo. */
  env: NodeJS.ProcessEnv;
  /** The slurm.conf path. */
  conf: string;
  dir: string;
  /** Milliseconds from the call until the node was idle. */
  startMs: number;
  stop(): Promise<void>;
}

export interface SlurmOptions {
  /** CPUs the node advertises; default os.availableParallelism(). More than the machine has is allowed (oversubscribed). */
  cpus?: number;
  /** RealMemory in MB; default 1024 (jobs that ask for more stay pending). */
  memoryMb?: number;
  timeoutMs?: number;
}

/**
 * A one-node Slurm cluster: munged with its own key and socket, slurmctld and slurmd in the foreground, all
 * state, spool, pid and log files in a fresh temporary folder, on free loopback ports. Resolves once `sinfo`
 * shows the node idle. Jobs run as the calling user (SlurmUser and SlurmdUser are the calling user: root in CI).
 */
export async function startSlurm(options: SlurmOptions = {}): Promise<SlurmService> {
  const started = Date.now();
  const munged = need('slurm', 'munged');
  const munge = need('slurm', 'munge');
  const slurmctld = need('slurm', 'slurmctld');
  const slurmd = need('slurm', 'slurmd');
  const sinfo = need('slurm', 'sinfo');
  const scancel = findProgram('scancel');

  const dir = tempDir('cckit-slurm-');
  const daemons: Daemon[] = [];
  let stopped = false;
  const env: NodeJS.ProcessEnv = { ...process.env, SLURM_CONF: path.join(dir, 'slurm.conf'), PATH: SEARCH_PATH.join(path.delimiter) };
  const user = os.userInfo().username;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const ctld = daemons.find((d) => d.name === 'slurmctld');
    if (scancel && ctld && ctld.exitCode() === undefined) await run(scancel, ['--quiet', '-u', user], env, 3000);
    // slurmd before slurmctld (no node-down noise), munged last (both authenticate through it).
    for (const d of [...daemons].reverse()) await stopDaemon(d);
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    // munge: a fresh 1024-byte key (munged wants it 0600 and owned by its user), its socket, pid and seed here.
    const key = path.join(dir, 'munge.key');
    fs.writeFileSync(key, randomBytes(1024), { mode: 0o600 });
    const mungeSocket = path.join(dir, 'munge.sock');
    const mungeArgs = ['--foreground', '--force', `--socket=${mungeSocket}`, `--key-file=${key}`];
    mungeArgs.push(`--pid-file=${path.join(dir, 'munged.pid')}`, `--seed-file=${path.join(dir, 'munged.seed')}`, `--log-file=${path.join(dir, 'munged.log')}`);
    daemons.push(daemon('munged', munged, mungeArgs, path.join(dir, 'munged.out')));
    await waitFor('munged', async () => (await run(munge, ['-n', '-S', mungeSocket], env, 2000)).code === 0, daemons, 10_000);

    const [ctldPort, slurmdPort] = await freePorts(2);
    const cpus = options.cpus ?? os.availableParallelism();
    const f = (name: string) => path.join(dir, name);
    fs.mkdirSync(f('state'));
    fs.mkdirSync(f('spool'));
    const conf = [
      'ClusterName=cckit',
      'SlurmctldHost=localhost(127.0.0.1)',
      `SlurmUser=${user}`,
      `SlurmdUser=${user}`,
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${slurmdPort}`,
      'AuthType=auth/munge',
      'CredType=cred/munge',
      `AuthInfo=socket=${mungeSocket}`,
      `StateSaveLocation=${f('state')}`,
      `SlurmdSpoolDir=${f('spool')}`,
      `SlurmctldPidFile=${f('slurmctld.pid')}`,
      `SlurmdPidFile=${f('slurmd.pid')}`,
      `SlurmctldLogFile=${f('slurmctld.log')}`,
      `SlurmdLogFile=${f('slurmd.log')}`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'MpiDefault=none',
      'MailProg=/bin/true',
      'ReturnToService=2',
      'SchedulerType=sched/backfill',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_CPU',
      'JobAcctGatherType=jobacct_gather/none',
      'AccountingStorageType=accounting_storage/none',
      // Fast turnaround: schedule on every submit/completion without the 3 s batch delay; MinJobAge=4 keeps
      // `sbatch --wait` polling every 2 s (it backs off 2 → 8 → 32 s while poll < MinJobAge/2; the default 300
      // makes a 1-second array wait 10 s) and still leaves finished jobs visible for 4 s.
      'SchedulerParameters=batch_sched_delay=0,sched_min_interval=0',
      'MinJobAge=4',
      'SlurmctldTimeout=10',
      'SlurmdTimeout=10',
      'InactiveLimit=0',
      'KillWait=2',
      // Allows advertising more CPUs than the machine has (options.cpus) without the node draining.
      ...(cpus > os.availableParallelism() ? ['SlurmdParameters=config_overrides'] : []),
      `NodeName=localhost NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${options.memoryMb ?? 1024} State=UNKNOWN`,
      'PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP',
      '',
    ].join('\n');
    fs.writeFileSync(f('slurm.conf'), conf);

    daemons.push(daemon('slurmctld', slurmctld, ['-D', '-i', '-f', f('slurm.conf')], f('slurmctld.out'), env));
    daemons.push(daemon('slurmd', slurmd, ['-D', '-N', 'localhost', '-f', f('slurm.conf')], f('slurmd.out'), env));
    const idle = async () => {
      const r = await run(sinfo, ['-h', '-N', '-n', 'localhost', '-o', '%T'], env, 3000);
      return r.code === 0 && r.stdout.trim() === 'idle';
    };
    await waitFor('the Slurm node to be idle', idle, daemons, options.timeoutMs ?? 30_000);
    return { env, conf: f('slurm.conf'), dir, startMs: Date.now() - started, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
