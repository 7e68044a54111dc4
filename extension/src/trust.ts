/**
 * Workspace trust, checked in one place. The kernel is workspace code: `dist/kernel/host.js` of the cckit
 * the workspace (or its `cckit.root` setting) points at is loaded into the extension host, and tslab from
 * the same folder runs as a child process. So nothing is loaded or spawned from the workspace without a
 * `TrustGrant`, and only `requireTrust` makes one, when the workspace is trusted at that moment; in an
 * untrusted workspace it throws `WorkspaceNotTrustedError`, whose message says why. Pure (no vscode import):
 * the caller passes `vscode.workspace`, so plain-Node tests pass a stand-in.
 */

/** Proof that the workspace was trusted when an action asked; `loadKernelModule` takes nothing else. */
export interface TrustGrant {
  readonly action: string;
}

const grants = new WeakSet<TrustGrant>();

export function untrustedMessage(action: string): string {
  return (
    `cckit runs no workspace code in an untrusted workspace, so it did not ${action}: the kernel is the ` +
    "workspace's own code (dist/kernel/host.js and tslab of its cckit). Trust the workspace " +
    `(Workspaces: Manage Workspace Trust) to ${action}.`
  );
}

export class WorkspaceNotTrustedError extends Error {
  override readonly name = 'WorkspaceNotTrusted';
  constructor(readonly action: string) {
    super(untrustedMessage(action));
  }
}

/** A grant for `action` when `workspace.isTrusted` is true now; else throws WorkspaceNotTrustedError. */
export function requireTrust(workspace: { readonly isTrusted: boolean }, action: string): TrustGrant {
  if (workspace.isTrusted !== true) throw new WorkspaceNotTrustedError(action);
  const grant: TrustGrant = Object.freeze({ action });
  grants.add(grant);
  return grant;
}

/** Whether `grant` came from `requireTrust` (a cast or a copied object does not count). */
export function isTrustGrant(grant: unknown): grant is TrustGrant {
  return typeof grant === 'object' && grant !== null && grants.has(grant as TrustGrant);
}
