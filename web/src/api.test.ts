import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The messages are the catalog's keys: the client is tested, not the catalogs (which need a browser).
vi.mock('./i18n', () => ({ t: (key: string) => key }));

const { Api, ApiError, errorMessage } = await import('./api');

/** answer is a response of the API: its JSON body with status. */
function answer(status: number, body?: unknown, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

describe('Api', () => {
  let sent: Request[];
  let reply: () => Response | Promise<Response>;
  let expired: string[];
  let api: InstanceType<typeof Api>;

  beforeEach(() => {
    sent = [];
    expired = [];
    vi.stubGlobal('location', { origin: 'http://auditd.test' });
    vi.stubGlobal('fetch', async (req: Request) => {
      sent.push(req);
      return reply();
    });
    api = new Api(
      () => Promise.resolve('tok'),
      (err) => expired.push(errorMessage(err)),
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  it('signs the call, fills the path, repeats an array parameter, leaves empty ones out and answers the details', async () => {
    reply = () => answer(200, { success: true, code: 'OK', details: { items: [], total: 0 } });
    const names = await api.get('/users/names', { params: { query: { id: ['a b', 'c'], q: '', limit: 20 } } });
    expect(names).toEqual({ items: [], total: 0 });
    expect(sent[0].url).toBe('http://auditd.test/users/names?id=a+b&id=c&limit=20');
    expect(sent[0].headers.get('Authorization')).toBe('Bearer tok');

    reply = () => answer(200, { success: true, code: 'OK', details: { uuid: 'x/y' } });
    await api.get('/tasks/{uuid}', { params: { path: { uuid: 'x/y' } } });
    expect(sent[1].url).toBe('http://auditd.test/tasks/x%2Fy');
  });

  it('sends a body as JSON and answers undefined for a 204', async () => {
    reply = () => new Response(null, { status: 204 });
    const none = await api.delete('/notifications/{id}', { params: { path: { id: 'n1' } } });
    expect(none).toBeUndefined();
    reply = () => answer(200, { success: true, code: 'OK', details: { id: 'v1', name: 'Mine', query: '' } });
    await api.post('/views', { body: { name: 'Mine', query: '' } });
    expect(sent[1].headers.get('Content-Type')).toBe('application/json');
    expect(await sent[1].json()).toEqual({ name: 'Mine', query: '' });
  });

  it("turns the API's error into an ApiError with its code, fields and request id", async () => {
    reply = () =>
      answer(422, {
        success: false,
        code: 'VALIDATION_ERROR',
        message: 'bad',
        details: [{ location: 'body.name', message: 'required' }],
        request_id: 'r1',
      });
    const err = await api.post('/views', { body: { name: '', query: '' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR', status: 422, message: 'bad', requestId: 'r1' });
    expect(errorMessage(err)).toBe('error.code.VALIDATION_ERROR error.fields');
    expect(expired).toEqual([]);
  });

  it('ends the session on a 401 to a signed call, not to an unsigned one', async () => {
    reply = () => answer(401, { success: false, code: 'UNAUTHORIZED', message: 'expired' });
    await expect(api.get('/users/me')).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(expired).toEqual(['error.code.UNAUTHORIZED']);
    await expect(new Api(null).get('/client-config')).rejects.toMatchObject({ status: 401 });
    expect(sent[1].headers.get('Authorization')).toBeNull();
    expect(expired).toHaveLength(1);
  });

  it('makes up the error of an answer that is not the API’s, and of a failure to connect; an abort stays itself', async () => {
    reply = () => new Response('<html>', { status: 502, headers: { 'X-Request-Id': 'r2' } });
    await expect(api.get('/users/me')).rejects.toMatchObject({ code: 'HTTP_ERROR', status: 502, requestId: 'r2' });
    reply = () => Promise.reject(new TypeError('Failed to fetch'));
    await expect(api.get('/users/me')).rejects.toMatchObject({ code: 'NETWORK_ERROR', status: 0 });
    reply = () => Promise.reject(new DOMException('aborted', 'AbortError'));
    await expect(api.get('/users/me')).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('reads a file as a blob, with its response', async () => {
    reply = () => new Response('a,b\n', { status: 200, headers: { 'Content-Disposition': 'attachment; filename="tasks.csv"' } });
    const { blob, response } = await api.blob('/tasks/export', { params: { query: { format: 'csv' } } });
    expect(await blob.text()).toBe('a,b\n');
    expect(response.headers.get('Content-Disposition')).toContain('tasks.csv');
    expect(sent[0].url).toBe('http://auditd.test/tasks/export?format=csv');
  });
});
