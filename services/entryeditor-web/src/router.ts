// Paths of the history API (no #): nginx answers every path that is not a file with
// index.html, and the app picks the page.
import { createRouter, createWebHistory, type RouteLocationNormalized } from 'vue-router';
import DiffPage from './views/DiffPage.vue';
import EntryList from './views/EntryList.vue';
import EntryPage from './views/EntryPage.vue';
import NewEntry from './views/NewEntry.vue';
import NotFound from './views/NotFound.vue';
import QueryConsole from './views/QueryConsole.vue';
import SentencePage from './views/SentencePage.vue';

const numericId = (route: RouteLocationNormalized): { id: number } => ({
  id: Number(route.params.id),
});

export const routes = [
  { path: '/', redirect: '/entries' },
  { path: '/entries', component: EntryList, meta: { title: 'Entries' } },
  { path: '/entries/new', component: NewEntry, meta: { title: 'New entry' } },
  { path: '/entries/:id(\\d+)', component: EntryPage, props: numericId, meta: { title: 'Entry' } },
  {
    path: '/entries/:id(\\d+)/query',
    component: QueryConsole,
    props: numericId,
    meta: { title: 'Query console' },
  },
  { path: '/diff', component: DiffPage, meta: { title: 'Compare entries' } },
  { path: '/sentences/:id(\\d+)', component: SentencePage, props: numericId, meta: { title: 'Sentence' } },
  { path: '/:rest(.*)*', component: NotFound, meta: { title: 'Not found' } },
];

export function createAppRouter() {
  const router = createRouter({ history: createWebHistory(), routes });
  router.afterEach((to) => {
    document.title = `${String(to.meta.title ?? '')} · Entry editor`;
  });
  return router;
}
