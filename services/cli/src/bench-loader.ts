type Command = (argv: readonly string[]) => Promise<number>;

/**
 * `hookstream bench` comes from the bench workspace (`bench/`), which a checkout installs and
 * the image does not: the product carries no benchmark code or dependencies. Loaded only here,
 * and only when installed.
 */
export async function loadBenchCommand(): Promise<Command> {
  // A variable, so no bundler or type check treats the bench as a dependency of the CLI.
  const name = '@hookstream/bench';
  try {
    const bench = (await import(name)) as { benchCommand: Command };
    return bench.benchCommand;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String((err as Error).message).includes(name)) throw err;
    return async () => {
      process.stderr.write(
        'hookstream bench: the benchmarks are not installed here (the image carries none); run them from a ' +
          'checkout after `npm install`\n',
      );
      return 2;
    };
  }
}
