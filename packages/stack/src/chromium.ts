import { join } from 'node:path';
import type { StackConfig } from './config.ts';
import { StackError } from './errors.ts';
import { runInstallStep } from './install-step.ts';
import type { Reporter } from './progress.ts';
import { withToolLock } from './tool-lock.ts';
import { whichCommand } from './tools.ts';

/** Debian's package names its browser `chromium`; a distribution's build, not one a test tool downloads. */
const CANDIDATES = ['chromium', 'chromium-browser'] as const;

/**
 * Returns the path of a Chromium for browser tests (the console's), installing Debian's
 * `chromium` package when none is on PATH, the way Redis is installed: as root with apt-get,
 * the output logged under the cache. Playwright's own browser download is never used: this
 * machine reaches Debian's packages, not a browser build site.
 */
export async function ensureChromium(config: StackConfig, report: Reporter): Promise<string> {
  const found = await findChromium();
  if (found !== null) return found;
  return withToolLock(config, 'chromium', report, () => installChromium(config, report));
}

async function installChromium(config: StackConfig, report: Reporter): Promise<string> {
  const found = await findChromium();
  if (found !== null) return found;
  const aptGet = await whichCommand('apt-get');
  if (!aptGet || process.getuid?.() !== 0) {
    throw new StackError(
      'TOOL_MISSING',
      'the browser tests need Chromium, which is not on PATH: install it (Debian: apt-get install chromium), or run the tests as root where apt-get can',
    );
  }
  const logDir = join(config.cacheDir, 'chromium');
  await runInstallStep(
    {
      component: 'chromium',
      label: 'updating Debian package lists',
      command: aptGet,
      args: ['update', '-q'],
      cwd: config.cacheDir,
      logFile: join(logDir, 'apt-update.log'),
    },
    report,
  );
  await runInstallStep(
    {
      component: 'chromium',
      label: 'installing chromium from Debian packages',
      command: aptGet,
      args: ['install', '-y', '-q', '--no-install-recommends', 'chromium'],
      cwd: config.cacheDir,
      logFile: join(logDir, 'apt-install.log'),
      env: { DEBIAN_FRONTEND: 'noninteractive' },
      progressLine: /^(Get|Setting up|Unpacking) /,
      progressNoun: 'package steps',
    },
    report,
  );
  const installed = await findChromium();
  if (installed === null)
    throw new StackError(
      'INSTALL_FAILED',
      'chromium: apt-get installed the package but no chromium is on PATH',
    );
  return installed;
}

async function findChromium(): Promise<string | null> {
  for (const name of CANDIDATES) {
    const path = await whichCommand(name);
    if (path) return path;
  }
  return null;
}
