/**
 * The extension tested in desktop VS Code through @vscode/test-electron, for machines that have VS Code
 * (CI here has none and cannot download it: it runs test/vscode.test.ts on code-server instead).
 *
 *   npm run build && node extension/build.mjs
 *   VSCODE_PATH=/usr/share/code/code npx tsx scripts/vscode-electron.ts   # or without VSCODE_PATH: downloads VS Code
 */
import * as path from 'path';
import { runTests } from '@vscode/test-electron';
import { PACKAGE_ROOT } from '../src/paths';

async function main(): Promise<void> {
  const code = await runTests({
    ...(process.env.VSCODE_PATH ? { vscodeExecutablePath: process.env.VSCODE_PATH } : {}),
    extensionDevelopmentPath: path.join(PACKAGE_ROOT, 'extension'),
    extensionTestsPath: path.join(PACKAGE_ROOT, 'extension', 'test-electron', 'suite.js'),
    launchArgs: [PACKAGE_ROOT, '--disable-workspace-trust', '--skip-welcome'],
  });
  process.exit(code);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
