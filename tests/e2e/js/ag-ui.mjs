// Drives an Awaken server with the official AG-UI packages and prints a JSON report.
//
//   node ag-ui.mjs <base-url> <thread-prefix>
//
// 1. raw: POST /v1/ag-ui/run and validate every SSE event with @ag-ui/core's EventSchemas;
// 2. agent: @ag-ui/client's HttpAgent runs a tool-calling turn (the client verifies the event
//    lifecycle and rebuilds the message list);
// 3. frontend: HttpAgent passes a frontend tool, the run ends with an interrupt, and a second
//    run resumes it with the tool result;
// 4. approval: a tool needing permission interrupts the run; resuming approves and replays it.
import { EventSchemas } from "@ag-ui/core/schemas";
import { HttpAgent } from "@ag-ui/client";
import { randomUUID } from "node:crypto";

const [base, prefix] = process.argv.slice(2);
const url = `${base}/v1/ag-ui/run`;
const report = { raw: {}, agent: {}, frontend: {}, approval: {}, invalid: [], validated: 0 };

// Every event any step receives is checked against @ag-ui/core's schemas.
function validate(event) {
  report.validated += 1;
  const parsed = EventSchemas.safeParse(event);
  if (!parsed.success) report.invalid.push({ event, issues: parsed.error.issues });
}

async function raw() {
  const out = report.raw;
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({
      threadId: `${prefix}-raw`,
      runId: randomUUID(),
      messages: [{ id: randomUUID(), role: "user", content: "Weather in Tokyo?" }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    }),
  });
  out.status = response.status;
  out.contentType = response.headers.get("content-type");
  const text = await response.text();
  out.types = [];
  out.invalid = [];
  for (const frame of text.split("\n\n")) {
    const data = frame
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    if (!data) continue;
    const event = JSON.parse(data);
    out.types.push(event.type);
    const before = report.invalid.length;
    validate(event);
    out.invalid.push(...report.invalid.slice(before));
  }
}

async function agentRun() {
  const out = report.agent;
  const agent = new HttpAgent({ url, threadId: `${prefix}-agent` });
  agent.addMessage({ id: randomUUID(), role: "user", content: "Weather in Tokyo?" });
  out.events = [];
  const result = await agent.runAgent(
    { runId: randomUUID() },
    {
      onEvent: ({ event }) => {
        validate(event);
        out.events.push(event.type);
      },
    },
  );
  out.newMessages = result.newMessages;
  out.messages = agent.messages;
}

async function frontendTool() {
  const out = report.frontend;
  const agent = new HttpAgent({ url, threadId: `${prefix}-frontend` });
  const tools = [
    {
      name: "pick_color",
      description: "Ask the user for a color",
      parameters: { type: "object", properties: { hint: { type: "string" } } },
    },
  ];
  agent.addMessage({ id: randomUUID(), role: "user", content: "Pick a color for the wall" });
  out.first = [];
  let interrupts = [];
  await agent.runAgent(
    { runId: randomUUID(), tools },
    {
      onEvent: ({ event }) => {
        validate(event);
        out.first.push(event.type);
      },
      onRunFinishedEvent: (params) => {
        out.firstOutcome = params.outcome;
        interrupts = params.interrupts ?? [];
      },
    },
  );
  out.interrupts = interrupts;
  out.pendingAfterFirst = agent.pendingInterrupts.map((i) => i.id);
  out.second = [];
  const resume = interrupts.map((i) => ({
    interruptId: i.id,
    status: "resolved",
    payload: { color: "blue" },
  }));
  await agent.runAgent(
    { runId: randomUUID(), tools, resume },
    {
      onEvent: ({ event }) => {
        validate(event);
        out.second.push(event.type);
      },
      onRunFinishedEvent: (params) => {
        out.secondOutcome = params.outcome;
      },
    },
  );
  out.messages = agent.messages;
}

async function approval() {
  const out = report.approval;
  const agent = new HttpAgent({ url, threadId: `${prefix}-approval` });
  agent.addMessage({ id: randomUUID(), role: "user", content: "please deploy" });
  let interrupts = [];
  await agent.runAgent(
    { runId: randomUUID() },
    {
      onEvent: ({ event }) => validate(event),
      onRunFinishedEvent: (params) => {
        interrupts = params.interrupts ?? [];
      },
    },
  );
  out.interrupts = interrupts;
  out.second = [];
  await agent.runAgent(
    {
      runId: randomUUID(),
      resume: interrupts.map((i) => ({ interruptId: i.id, status: "resolved", payload: { approved: true } })),
    },
    {
      onEvent: ({ event }) => {
        validate(event);
        out.second.push(event);
      },
      onRunFinishedEvent: (params) => { out.secondOutcome = params.outcome; },
    },
  );
}

for (const [name, step] of [
  ["raw", raw],
  ["agent", agentRun],
  ["frontend", frontendTool],
  ["approval", approval],
]) {
  try {
    await step();
  } catch (error) {
    report[name].error = String(error?.stack ?? error);
  }
}

process.stdout.write(JSON.stringify(report));
