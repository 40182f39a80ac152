// Time to turn GitHub's full REST API description (@octokit/openapi, ~1,200 operations) into tools: cold (parse
// the JSON text, validate, dereference, build) against building from a cached `parseOpenApiDocument` result, in the
// same run. `npm run bench -- openapi`
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createOpenApiTools, parseOpenApiDocument } from '../src/index.ts';

const require = createRequire(import.meta.url);
const githubText = readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8');

interface Measurement {
  readonly milliseconds: number;
  /** CPU time of this process (user + system): steadier than wall time on a shared machine. */
  readonly cpuMilliseconds: number;
  readonly tools: number;
}

async function measure(runs: number, body: () => Promise<number>): Promise<Measurement> {
  const samples: { wall: number; cpu: number }[] = [];
  let tools = 0;
  for (let run = 0; run < runs; run += 1) {
    globalThis.gc?.();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    tools = await body();
    const wall = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    samples.push({ wall, cpu: (cpu.user + cpu.system) / 1000 });
  }
  samples.sort((left, right) => left.wall - right.wall);
  const median = samples[Math.floor(samples.length / 2)] as { wall: number; cpu: number };
  return { milliseconds: median.wall, cpuMilliseconds: median.cpu, tools };
}

const parsed = await parseOpenApiDocument(githubText);
// Warm the code paths once so the cached figure is not a first-run figure.
await createOpenApiTools({ document: parsed, fetch });

const cached = await measure(5, async () => (await createOpenApiTools({ document: parsed, fetch })).length);
const coldUnvalidated = await measure(
  1,
  async () => (await createOpenApiTools({ document: githubText, fetch, validate: false })).length,
);
const cold = await measure(1, async () => (await createOpenApiTools({ document: githubText, fetch })).length);
const tools = await createOpenApiTools({ document: parsed, fetch });
const serialiseStarted = performance.now();
const definitionsJson = JSON.stringify(tools.map((tool) => tool.definition()));
const serialiseMilliseconds = performance.now() - serialiseStarted;

const row = (label: string, result: Measurement) =>
  `| ${label} | ${result.milliseconds.toFixed(0)} | ${result.cpuMilliseconds.toFixed(0)} | ${((result.tools / result.milliseconds) * 1000).toFixed(0)} | ${(result.milliseconds / cached.milliseconds).toFixed(1)}x |`;

console.log("## OpenAPI tools from GitHub's REST API (`createOpenApiTools`)\n");
console.log(
  `${cached.tools} operations → ${cached.tools} tools; document ${(githubText.length / 2 ** 20).toFixed(1)} MiB of JSON.\n`,
);
console.log('| path | wall ms | CPU ms | tools per second (wall) | vs cached (wall) |');
console.log('|---|---:|---:|---:|---:|');
console.log(row('cached parsed document (build only)', cached));
console.log(row('cold, validation off (JSON parse + dereference + build)', coldUnvalidated));
console.log(row('cold (JSON parse + validate + dereference + build)', cold));
console.log(
  `\nAll ${tools.length} definitions serialise to ${(definitionsJson.length / 2 ** 20).toFixed(2)} MiB of JSON in ${serialiseMilliseconds.toFixed(0)} ms (mean ${(definitionsJson.length / tools.length / 1024).toFixed(1)} KiB per tool). Cold runs: 1 each (seconds each); cached: median of 5.\n`,
);
