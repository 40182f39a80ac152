import { defineConfig } from 'vite';

// JSX through Vite's own transform (automatic runtime), so no React plugin is needed for a production build.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  resolve: { conditions: ['development'] },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, target: 'es2022', chunkSizeWarningLimit: 900 },
});
