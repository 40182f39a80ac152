import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createCitationAllocator, Emitter, runToolCalls } from '@toolbus/core';
import { createGuardedFetch, type GuardedFetch } from '@toolbus/core/node';
import type { Packet, PacketObject, Placement, Tool, ToolEmitter } from '@toolbus/spec';
import { ToolExecutionError } from '@toolbus/spec';
import { DEFAULT_ORGANIZATION_ID, openStorage, type Storage } from '@toolbus/storage';
import {
  type FakeImagesServer,
  onePixelPng,
  startFakeImagesServer,
} from './__fixtures__/fake-images-server.ts';
import { createGenerateImageTool, type GenerateImageToolOptions } from './generate-image-tool.ts';
import type { GeneratedImageFileStore } from './generated-image-store.ts';

const apiKey = 'sk-test-images-key';

type ImagesFinal = Extract<PacketObject, { type: 'image-generation-final' }>;

describe('generate_image against a loopback images API', () => {
  let storage: Storage;
  let server: FakeImagesServer;
  let guardedFetch: GuardedFetch;
  let userId: string;

  before(async () => {
    storage = await openStorage({ path: ':memory:', secretKey: new Uint8Array(randomBytes(32)) });
    userId = (await storage.users.create({ email: 'painter@example.com' })).id;
    server = await startFakeImagesServer({ apiKey });
    // Strict SSRF guard with only the fake's loopback address allowed, as an application would configure it.
    guardedFetch = createGuardedFetch({ level: 'strict', allow: ['127.0.0.1/32'] });
  });
  after(async () => {
    await guardedFetch.close();
    await server.close();
    await storage.close();
  });

  const makeTool = (overrides: Partial<GenerateImageToolOptions> = {}) =>
    createGenerateImageTool({
      fetch: guardedFetch,
      baseUrl: server.baseUrl,
      apiKey,
      model: 'dall-e-3',
      storage,
      ...overrides,
    });

  async function generate(
    tool: Tool,
    argumentsObject: Record<string, unknown>,
    options: { userId?: string | null } = {},
  ) {
    const emitter = new Emitter();
    const id = options.userId === null ? undefined : (options.userId ?? userId);
    const result = await runToolCalls({
      calls: [
        {
          id: 'image-call',
          name: 'generate_image',
          arguments: argumentsObject,
          placement: { turn: 2, tab: 0 },
        },
      ],
      tools: [tool],
      emitter,
      userId: id,
    });
    emitter.close();
    const packets: Packet[] = [];
    for await (const packet of emitter) packets.push(packet);
    const outcome = result.outcomes[0];
    assert.ok(outcome);
    return { outcome, stopped: result.stopped, packets: packets.map((packet) => packet.obj) };
  }

  const lastPost = () => server.requests.filter((request) => request.method === 'POST').at(-1);

  test('b64_json answer: the request as OpenAI documents it, the image stored as the user’s file, a stopping tool', async () => {
    const { outcome, stopped, packets } = await generate(makeTool(), {
      prompt: 'a red fox in snow',
      shape: 'landscape',
    });
    assert.equal(outcome.status, 'success', outcome.response.llmFacing);
    const post = lastPost();
    assert.equal(post?.path, '/v1/images/generations');
    assert.ok(post?.headerNames.includes('authorization'));
    assert.deepEqual(post?.body, {
      model: 'dall-e-3',
      prompt: 'a red fox in snow',
      size: '1536x1024',
      n: 1,
      response_format: 'b64_json',
    });
    const final = packets.find((packet): packet is ImagesFinal => packet.type === 'image-generation-final');
    assert.ok(final);
    const image = final.images[0];
    assert.ok(image);
    assert.deepEqual(final.images, [
      {
        fileId: image.fileId,
        name: 'generated-image.png',
        mediaType: 'image/png',
        sizeBytes: onePixelPng.length,
        revisedPrompt: 'A detailed picture: a red fox in snow',
      },
    ]);
    const stored = await storage.files.get(image.fileId);
    assert.equal(stored?.userId, userId);
    assert.equal(stored?.mediaType, 'image/png');
    assert.deepEqual(await storage.files.readContent(image.fileId), onePixelPng);
    assert.deepEqual(JSON.parse(outcome.response.llmFacing), [
      { file_id: image.fileId, revised_prompt: 'A detailed picture: a red fox in snow' },
    ]);
    assert.deepEqual(outcome.response.rich, { type: 'images', images: [{ ...image, shape: 'landscape' }] });
    assert.equal(stopped, true, 'generate_image ends the loop');
  });

  test('url answer: the image is downloaded through the same guarded fetch', async () => {
    const { outcome, packets } = await generate(makeTool(), { prompt: 'as-url: a blue boat' });
    assert.equal(outcome.status, 'success', outcome.response.llmFacing);
    assert.equal((lastPost()?.body as { size?: string } | undefined)?.size, '1024x1024', 'square by default');
    assert.equal(server.requests.at(-1)?.path, '/files/generated.png');
    const final = packets.find((packet): packet is ImagesFinal => packet.type === 'image-generation-final');
    const fileId = final?.images[0]?.fileId ?? '';
    assert.deepEqual(await storage.files.readContent(fileId), onePixelPng);
  });

  test("with the turn's organisation, the stored image belongs to it (default: the default organisation)", async () => {
    const studio = await storage.organizations.create({ name: 'Image studio' });
    const fileOf = async (tool: Tool) => {
      const { outcome, packets } = await generate(tool, { prompt: 'a green kite' });
      assert.equal(outcome.status, 'success', outcome.response.llmFacing);
      const final = packets.find((packet): packet is ImagesFinal => packet.type === 'image-generation-final');
      return storage.files.get(final?.images[0]?.fileId ?? '');
    };
    assert.equal((await fileOf(makeTool({ organizationId: studio.id })))?.organizationId, studio.id);
    assert.equal((await fileOf(makeTool()))?.organizationId, DEFAULT_ORGANIZATION_ID);
  });

  test('GPT image models: no response_format, portrait size, no revised prompt (the prompt is reported)', async () => {
    const { outcome } = await generate(makeTool({ model: 'gpt-image-1' }), {
      prompt: 'a tall tower',
      shape: 'portrait',
    });
    assert.equal(outcome.status, 'success', outcome.response.llmFacing);
    assert.deepEqual(lastPost()?.body, {
      model: 'gpt-image-1',
      prompt: 'a tall tower',
      size: '1024x1536',
      n: 1,
    });
    assert.equal(
      (JSON.parse(outcome.response.llmFacing) as { revised_prompt: string }[])[0]?.revised_prompt,
      'a tall tower',
    );
  });

  test('a content-policy refusal is a clear execution error with an error packet, and nothing is stored', async () => {
    const filesBefore = (await storage.files.listForUser(userId)).length;
    const { outcome, packets, stopped } = await generate(makeTool(), { prompt: 'refuse-me please' });
    assert.equal(outcome.status, 'execution-error');
    assert.match(outcome.response.llmFacing, /refused this prompt under its content policy/);
    assert.match(outcome.response.llmFacing, /rejected as a result of our safety system/);
    const error = packets.find((packet) => packet.type === 'error');
    assert.equal(error?.type === 'error' && error.code, 'image_content_policy');
    assert.equal(stopped, false, 'a failed image does not end the loop');
    assert.equal((await storage.files.listForUser(userId)).length, filesBefore);
  });

  test('wrong key, server errors, non-images and URLs outside the allowed network fail with their own codes', async () => {
    const expectFailure = async (tool: Tool, prompt: string, code: string, message: RegExp) => {
      const { outcome, packets } = await generate(tool, { prompt });
      assert.equal(outcome.status, 'execution-error', prompt);
      assert.match(outcome.response.llmFacing, message);
      const error = packets.find((packet) => packet.type === 'error');
      assert.equal(error?.type === 'error' && error.code, code, prompt);
      return outcome.response.llmFacing;
    };
    const unauthorized = await expectFailure(
      makeTool({ apiKey: 'sk-wrong-key' }),
      'a cat',
      'image_provider_unauthorized',
      /refused the configured credentials \(HTTP 401\)/,
    );
    assert.ok(!unauthorized.includes('sk-w'), 'no part of a key reaches the model');
    await expectFailure(makeTool(), 'server-error', 'image_provider_error', /failed \(HTTP 500\)/);
    await expectFailure(makeTool(), 'not-an-image', 'image_answer_invalid', /not a PNG, JPEG, WebP or GIF/);
    const downloadsBefore = server.requests.filter((request) => request.method === 'GET').length;
    await expectFailure(
      makeTool(),
      'point-elsewhere',
      'image_provider_unreachable',
      /could not be reached \(ssrf_blocked\)/,
    );
    assert.equal(server.requests.filter((request) => request.method === 'GET').length, downloadsBefore);
  });

  test('without a user to own the file nothing is requested; a file store works without one', async () => {
    const postsBefore = server.requests.length;
    const { outcome } = await generate(makeTool(), { prompt: 'a cat' }, { userId: null });
    assert.equal(outcome.status, 'execution-error');
    assert.match(outcome.response.llmFacing, /no signed-in user\. Nothing was generated/);
    assert.equal(server.requests.length, postsBefore);

    const saved: { userId?: string; name: string; content: Uint8Array }[] = [];
    const fileStore: GeneratedImageFileStore = {
      async save(image) {
        saved.push(image);
        return {
          id: `blob-${saved.length}`,
          name: image.name,
          mediaType: image.mediaType,
          sizeBytes: image.content.length,
        };
      },
    };
    const tool = createGenerateImageTool({
      fetch: guardedFetch,
      baseUrl: server.baseUrl,
      apiKey,
      model: 'dall-e-3',
      fileStore,
    });
    const anonymous = await generate(tool, { prompt: 'a dog' }, { userId: null });
    assert.equal(anonymous.outcome.status, 'success');
    assert.deepEqual(JSON.parse(anonymous.outcome.response.llmFacing)[0].file_id, 'blob-1');
    assert.equal(saved[0]?.userId, undefined);
    assert.throws(
      () => createGenerateImageTool({ fetch: guardedFetch, baseUrl: server.baseUrl, model: 'm' }),
      TypeError,
    );
  });

  // The tool's own contract (Tool.run), with an emitter that records even after the call: it shows that the
  // heartbeat timer stops with the call, which the runner's fenced emitter would hide.
  function recordingContext(signal: AbortSignal) {
    const emitted: PacketObject[] = [];
    const waiters: (() => void)[] = [];
    const placement: Placement = { turn: 0, tab: 0 };
    const emitter: ToolEmitter = {
      placement,
      closed: false,
      emit(obj) {
        emitted.push(obj);
        for (const wake of waiters.splice(0)) wake();
      },
      emitAt(_placement, obj) {
        emitter.emit(obj);
      },
      nested: () => emitter,
    };
    const heartbeats = () => emitted.filter((packet) => packet.type === 'image-generation-heartbeat').length;
    const untilHeartbeats = async (count: number) => {
      while (heartbeats() < count) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    const context = {
      placement,
      emitter,
      signal,
      userQuery: 'draw',
      history: [],
      files: [],
      citations: createCitationAllocator().view(),
      userId,
      extras: {},
    };
    return { emitted, heartbeats, untilHeartbeats, context };
  }
  const call = (prompt: string) => ({
    id: 'held',
    name: 'generate_image',
    arguments: { prompt },
    placement: { turn: 0, tab: 0 },
  });
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  test('heartbeats stream while the provider works, then the final packet; the timer stops with the call', async () => {
    const tool = makeTool({ heartbeatMs: 20 });
    const recorder = recordingContext(new AbortController().signal);
    const running = tool.run(call('hold: a slow mountain'), recorder.context);
    // The server answers only once two heartbeats were seen: no timing decides the outcome.
    await recorder.untilHeartbeats(2);
    server.releaseHeld();
    const response = await running;
    assert.equal(response.rich?.type, 'images');
    const types = recorder.emitted.map((packet) => packet.type);
    assert.equal(types.at(-1), 'image-generation-final');
    assert.ok(types.slice(0, -1).every((type) => type === 'image-generation-heartbeat'));
    const count = recorder.heartbeats();
    // Timers fire in deadline order: had the interval survived, it would tick before this longer wait ends.
    await pause(60);
    assert.equal(recorder.heartbeats(), count);
  });

  test('an abort while waiting stops the request and the heartbeats, and stores nothing', async () => {
    const filesBefore = (await storage.files.listForUser(userId)).length;
    const controller = new AbortController();
    const tool = makeTool({ heartbeatMs: 20 });
    const recorder = recordingContext(controller.signal);
    const running = tool.run(call('hold: an aborted meadow'), recorder.context);
    await recorder.untilHeartbeats(1);
    controller.abort(new Error('user pressed stop'));
    await assert.rejects(running, (error: unknown) => !ToolExecutionError.isInstance(error));
    const count = recorder.heartbeats();
    await pause(60);
    assert.equal(recorder.heartbeats(), count);
    const held = server.requests.filter(
      (request) => (request.body as { prompt?: string })?.prompt === 'hold: an aborted meadow',
    );
    for (let attempt = 0; attempt < 100 && !held[0]?.closedEarly; attempt += 1) await pause(5);
    assert.equal(held[0]?.closedEarly, true, 'the HTTP request was cancelled');
    server.releaseHeld();
    assert.equal((await storage.files.listForUser(userId)).length, filesBefore);
  });
});
