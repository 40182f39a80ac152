import type { SkillBundle, SkillBundleSource } from './skill-bundle.ts';

/**
 * The verified archive behind each validated bundle, kept out of the bundle object itself so a bundle stays plain
 * data (serialisable, printable) and cannot be forged into pointing at other bytes.
 */
export const bundleSources = new WeakMap<SkillBundle, SkillBundleSource>();
