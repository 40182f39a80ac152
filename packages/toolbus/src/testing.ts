// `toolbus/testing`: the scripted model server (a model over real HTTP in OpenAI's and Anthropic's wire formats) and
// the helpers to test your own tools without a real model.
export * from '@toolbus/core/testing';
