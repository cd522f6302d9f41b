// Vite builds the app into dist/: index.html and content-hashed files under assets/, which
// nginx serves with long-cache headers (deploy/nginx/entryeditor-web.conf.template).
// `npm run dev` proxies /api to an entry editor nginx (ENTRYEDITOR_URL), as the site does.
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [vue()],
  build: {
    target: 'es2022',
    // No source maps on the site.
    sourcemap: false,
  },
  server: {
    proxy: {
      '/api': {
        target: process.env.ENTRYEDITOR_URL ?? 'http://127.0.0.1:8402',
        rewrite: (path) => path.replace(/^\/api/, ''),
      },
    },
  },
  test: {
    environment: 'happy-dom',
    include: ['tests/**/*.spec.ts'],
  },
});
