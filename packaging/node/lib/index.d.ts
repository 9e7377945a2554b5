// SPDX-License-Identifier: MIT
// Types of the heel package (lib/index.js) for TypeScript callers.
/// <reference types="node" />
import { EventEmitter } from 'events';
import { Socket } from 'net';

/** What libheel said: errno is negative (-22), code its name ('EINVAL'). */
export class HeelError extends Error {
  constructor(message: string, errno: number);
  readonly errno: number;
  readonly code: string;
}

export interface SpawnOptions {
  /** Additions to the command's environment. */
  env?: Record<string, string> | string[];
  /** Where the command starts (absolute). */
  cwd?: string;
  /** heel-exec's path; default the one installed with libheel. */
  launcher?: string;
  /** heel-exec's own environment; default this process's. */
  launcherEnv?: Record<string, string> | string[];
  bestEffort?: boolean;
  newSession?: boolean;
  /** heel-exec --why: refusals explained, and returned by denials(). */
  why?: boolean;
}

/** One refused action (heel(5), the "denial/1" audit lines). */
export interface Denial {
  type: 'denial/1';
  timestamp: string;
  op: string;
  path?: string;
  host?: string;
  comm: string;
  wall: string;
  rule: string;
  reason: string;
  option?: string;
  line?: string;
  count: number;
  [field: string]: unknown;
}

export type Stdio = 'pipe' | 'ignore' | 'inherit' | number | null;

export interface ChildOptions extends SpawnOptions {
  /** Default 'ignore'. */
  stdin?: Stdio;
  /** Default 'pipe'. */
  stdout?: Stdio;
  /** Default 'pipe'. */
  stderr?: Stdio;
}

export interface RunOptions extends SpawnOptions {
  stdin?: 'ignore' | 'inherit' | number | null;
  /** Kept of each stream; default 1 MiB. */
  maxBytes?: number;
  /** Milliseconds; the sandbox is ended when it runs out. */
  timeout?: number | null;
  /** 'utf8' by default; 'buffer' for Buffers. */
  encoding?: BufferEncoding | 'buffer';
}

export interface RunResult<T = string> {
  status: number;
  stdout: T;
  stderr: T;
  timedOut: boolean;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
}

export class Policy {
  /** An empty policy (`heel 1`) for the builder calls. */
  constructor();
  static fromFile(path: string): Promise<Policy>;
  static fromString(text: string, name?: string | null): Promise<Policy>;
  isolation(base: string): this;
  grant(path: string, mode?: string): this;
  network(mode: 'deny' | 'allow-all' | 'allow-list' | string): this;
  allowDomain(pattern: string): this;
  auditLog(file: string): this;
  protect(set: string): this;
  unprotect(set: string): this;
  limit(name: string, value: string | number): this;
  envPass(name: string): this;
  envSet(name: string, value: string | number): this;
  workdir(dir: string): this;
  gpu(allow?: boolean): this;
  nice(steps: number): this;
  ioPriority(priority: 'utility' | 'background' | string): this;
  text(opts?: SpawnOptions): string;
  /** The compiler's warnings, or null. */
  check(opts?: SpawnOptions): string | null;
}

export class Child extends EventEmitter {
  readonly pid: number;
  /** null until heel-exec has ended. */
  readonly status: number | null;
  readonly stdin: Socket | null;
  readonly stdout: Socket | null;
  readonly stderr: Socket | null;
  wait(): Promise<number>;
  kill(sig?: NodeJS.Signals | number): void;
  /** After the end, with {why: true}: what the sandbox refused. */
  denials(): Denial[];
  close(): Promise<number>;
  ref(): this;
  unref(): this;
  on(event: 'exit', listener: (status: number) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

export function spawn(policy: Policy, argv: string[], opts?: ChildOptions): Promise<Child>;
export function run(policy: Policy, argv: string[], opts: RunOptions & { encoding: 'buffer' }): Promise<RunResult<Buffer>>;
export function run(policy: Policy, argv: string[], opts?: RunOptions): Promise<RunResult<string>>;
export const version: string;
