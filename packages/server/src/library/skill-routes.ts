import {
  acceptSkillBody,
  skillListSchema,
  skillParams,
  skillReviewSchema,
  skillSchema,
  skillUploadParams,
} from '@toolbus/api-schema';
import { omitUndefined } from '@toolbus/spec';
import type { RouteRegistry } from '../http/route-registry.ts';
import { uploadBytes } from '../http/upload-input.ts';
import type { LibraryAdmin } from './library-admin.ts';

const admin = { kind: 'admin' } as const;

/** The path of a skill zip upload (raw bytes, the upload body limit). */
export const SKILL_UPLOAD_PATH = '/v1/admin/skills/uploads';

/** Registers the admin routes of skills: upload and review, accept, list, remove. */
export function registerSkillRoutes(registry: RouteRegistry, library: LibraryAdmin): void {
  registry.add(
    {
      method: 'post',
      path: SKILL_UPLOAD_PATH,
      operationId: 'uploadSkill',
      summary:
        'Upload a skill zip (the raw bytes): validation problems and content-scan findings come back; nothing is stored yet',
      tag: 'admin',
      access: admin,
      rawBody: { description: 'The skill as a zip archive', contentType: 'application/zip' },
      responses: {
        200: { description: 'The review', schema: skillReviewSchema },
        400: { description: 'The body is not a readable zip archive (nothing is kept)' },
      },
    },
    async ({ context }) => context.json(await library.reviewSkillUpload(await uploadBytes(context))),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/skills/uploads/{uploadId}/accept',
      operationId: 'acceptSkill',
      summary: 'Store a reviewed skill; findings need acceptFindings: true',
      tag: 'admin',
      access: admin,
      params: skillUploadParams,
      body: acceptSkillBody,
      responses: {
        201: { description: 'The skill', schema: skillSchema },
        409: { description: 'Findings not accepted, or the name exists' },
      },
    },
    async ({ params, body, context }) =>
      context.json(await library.acceptSkill(params.uploadId, omitUndefined(body)), 201),
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/skills',
      operationId: 'listSkills',
      summary: 'Stored skills',
      tag: 'admin',
      access: admin,
      responses: { 200: { description: 'The skills', schema: skillListSchema } },
    },
    async ({ context }) => context.json({ skills: await library.listSkills() }),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/admin/skills/{name}',
      operationId: 'removeSkill',
      summary: 'Remove a skill',
      tag: 'admin',
      access: admin,
      params: skillParams,
      responses: { 204: { description: 'Removed' } },
    },
    async ({ params, context }) => {
      await library.removeSkill(params.name);
      return context.body(null, 204);
    },
  );
}
