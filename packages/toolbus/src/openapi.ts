// `toolbus/openapi`: the whole of @toolbus/openapi, its Node-only directory file store included, for users who go
// beyond `createOpenApiTools`, which the package root exports.
export * from '@toolbus/openapi';
export * from '@toolbus/openapi/node';
