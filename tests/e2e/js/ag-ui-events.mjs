// Runs one AG-UI turn against an Awaken server and validates every event with @ag-ui/core.
//
//   node ag-ui-events.mjs <base-url> <thread-id> <user-text>
//
// Prints {status, events, invalid}: the decoded SSE events in order and the schema failures.
import { EventSchemas } from "@ag-ui/core/schemas";
import { randomUUID } from "node:crypto";

const [base, threadId, text] = process.argv.slice(2);
const report = { status: null, events: [], invalid: [] };
try {
  const response = await fetch(`${base}/v1/ag-ui/run`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({
      threadId,
      runId: randomUUID(),
      messages: [{ id: randomUUID(), role: "user", content: text }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    }),
  });
  report.status = response.status;
  for (const frame of (await response.text()).split("\n\n")) {
    const data = frame
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    if (!data) continue;
    const event = JSON.parse(data);
    report.events.push(event);
    const parsed = EventSchemas.safeParse(event);
    if (!parsed.success) report.invalid.push({ event, issues: parsed.error.issues });
  }
} catch (error) {
  report.error = String(error?.stack ?? error);
}
process.stdout.write(JSON.stringify(report));
