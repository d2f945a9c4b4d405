/**
 * A custom point: your own lifecycle step (here a deployment) wrapped in the same onion as
 * the standard ones, with its own subject and matcher detail.
 *
 * Run: node --import tsx examples/custom-point.ts
 * @expect api to production: rejected by freeze: Production is frozen until Monday
 */
import { Outcome, Reject, Transform, agentPoints, createStack, gate } from "agent-onion";

interface Deploy {
  readonly service: string;
  readonly env: "staging" | "production";
  readonly version: string;
}
interface Deployed {
  readonly url: string;
}

const points = {
  ...agentPoints,
  deploy: gate<Deploy, Deployed>({ name: "deploy", subject: (d) => d.service, detail: (d) => d.env }),
};

const stack = createStack(points)
  .use("deploy", { name: "freeze", match: "api(production)", before: () => Reject("Production is frozen until Monday") })
  .use("deploy", { name: "pin", before: (d) => (d.version === "latest" ? Transform({ ...d, version: "1.4.2" }) : undefined) });

const deploy = (d: Deploy) =>
  stack.run("deploy", d, (input) => ({ url: `https://${input.env}.example.com/${input.service}@${input.version}` }));

for (const request of [
  { service: "api", env: "staging", version: "latest" },
  { service: "api", env: "production", version: "1.4.2" },
] as const) {
  const outcome = await deploy(request);
  console.log(
    `${request.service} to ${request.env}: ${Outcome.match(outcome, {
      Completed: (value) => `deployed at ${value.url}`,
      Rejected: (reason, by) => `rejected by ${by}: ${reason}`,
      Failed: (error) => `failed: ${String(error)}`,
    })}`,
  );
}
