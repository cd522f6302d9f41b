// The bearer token the services' writes need (docs/security.md): API_TOKEN, sent as
// `Authorization: Bearer $API_TOKEN` when set, and no header when unset. It must be the token
// the stack was started with:
//   docker compose   the files service and the entry editor take API_TOKEN from your
//                    environment or .env (deploy/compose/files.yaml, entryeditor.yaml); with
//                    none set there, every write answers 403. k6 reads the environment, not
//                    .env: `export API_TOKEN=...` before both, or pass `-e API_TOKEN=...`.
//   servelab up      makes a random token per run and prints it.
//   servelab bench   passes the token of the stack it started.
// A write sent without the stack's token answers 401; the summary counts it by status.
const TOKEN = __ENV.API_TOKEN || '';

// Whether k6's environment holds a token to send.
export function tokenSet() {
  return TOKEN !== '';
}

export function authHeaders() {
  return TOKEN ? { Authorization: `Bearer ${TOKEN}` } : {};
}
