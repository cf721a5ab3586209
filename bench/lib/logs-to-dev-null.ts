import { openSync, writeSync } from 'node:fs';

/**
 * Sends this process's stdout to /dev/null and returns the original writer, for the report. The
 * handlers log one JSON line per request (Powertools) to stdout, as in Lambda; in a bench process
 * those lines still cost one write each (as Lambda's stdout pipe does) but never mix with the report.
 */
export function logsToDevNull(): (text: string) => boolean {
  const devNull = openSync('/dev/null', 'w');
  const report = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    if (typeof chunk === 'string') writeSync(devNull, chunk);
    else writeSync(devNull, chunk);
    return true;
  }) as typeof process.stdout.write;
  return report;
}
