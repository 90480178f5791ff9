// The API client: openapi-fetch typed from the API's OpenAPI document
// (openapi.d.ts); every call adds the access token, unwraps the success
// envelope and turns every failure into an ApiError. What a person reads of it comes from its code, translated
// (errorMessage); the API's own words (in English) come second.
import createClient, { type Client, type ClientPathsWithMethod, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import { t, type MessageKey } from './i18n';
import type { components, paths } from './openapi';

/** ErrorCode is the API's error code, as its OpenAPI document lists them. */
export type ErrorCode = components['schemas']['Error']['code'];

/** codeMessages translates every error code; a code the API adds fails tsc until it is here. */
const codeMessages: Record<ErrorCode, MessageKey> = {
  MISSING_AUTH_HEADER: 'error.code.MISSING_AUTH_HEADER',
  UNAUTHORIZED: 'error.code.UNAUTHORIZED',
  FORBIDDEN: 'error.code.FORBIDDEN',
  MISSING_FIELDS: 'error.code.MISSING_FIELDS',
  VALIDATION_ERROR: 'error.code.VALIDATION_ERROR',
  NOT_FOUND: 'error.code.NOT_FOUND',
  METHOD_NOT_ALLOWED: 'error.code.METHOD_NOT_ALLOWED',
  CONFLICT: 'error.code.CONFLICT',
  PAYLOAD_TOO_LARGE: 'error.code.PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'error.code.UNSUPPORTED_MEDIA_TYPE',
  PRECONDITION_FAILED: 'error.code.PRECONDITION_FAILED',
  RANGE_NOT_SATISFIABLE: 'error.code.RANGE_NOT_SATISFIABLE',
  HEADERS_TOO_LARGE: 'error.code.HEADERS_TOO_LARGE',
  RATE_LIMITED: 'error.code.RATE_LIMITED',
  REQUEST_TIMEOUT: 'error.code.REQUEST_TIMEOUT',
  INTERNAL_ERROR: 'error.code.INTERNAL_ERROR',
  EMAIL_SEND_ERROR: 'error.code.EMAIL_SEND_ERROR',
  SERVICE_UNAVAILABLE: 'error.code.SERVICE_UNAVAILABLE',
  GONE: 'error.code.GONE',
};

/** ErrorDetail is one offending field of an API error. */
export interface ErrorDetail {
  location?: string;
  message: string;
  value?: unknown;
  /** at is the character (from 1) of a text value where the problem is (a scorecard's phrase). */
  at?: number;
}

/**
 * ApiError is a failed call: the API's own error (message is its words),
 * or one the client made up, already translated, for a network or
 * protocol failure.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly details: ErrorDetail[] = [],
    readonly requestId?: string,
    /** facts are the details of an error that describes its case instead of listing fields (an object, not a list). */
    readonly facts: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** fromAPI reports whether err is an error the API answered with one of its codes. */
export function fromAPI(err: unknown): err is ApiError & { code: ErrorCode } {
  return err instanceof ApiError && err.code in codeMessages;
}

/** codeMessage is what the code of one of the API's errors means, in the user's language. */
export function codeMessage(err: ApiError & { code: ErrorCode }): string {
  return t(codeMessages[err.code]);
}

/**
 * errorMessage is what to show a person for any thrown value: for the
 * API's errors, what their code means in the user's language, and the
 * fields they name.
 */
export function errorMessage(err: unknown): string {
  if (fromAPI(err)) {
    const fields = err.details.flatMap((d) => (d.location ? [d.location] : []));
    const msg = codeMessage(err);
    return fields.length ? `${msg} ${t('error.fields', { fields: fields.join(', ') })}` : msg;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

/** ErrorBody is the body of the API's errors (problem+json). */
type ErrorBody = components['schemas']['Error'];

/** Query is a query string's parameters; arrays repeat the parameter, empty values are left out. */
export type Query = Record<string, string | number | boolean | string[] | undefined | null>;

/** TokenSource returns a valid access token, renewing it first when it is about to expire. */
export type TokenSource = () => Promise<string>;

/** queryString is query as the API reads it: an array as its parameter repeated (id=a&id=b), empty values left out. */
export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue;
    for (const one of Array.isArray(v) ? v : [v]) params.append(k, String(one));
  }
  return params.toString();
}

function toDetails(raw: unknown): ErrorDetail[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter((d): d is ErrorDetail => typeof d === 'object' && d !== null && 'message' in d);
}

function toFacts(raw: unknown): Record<string, unknown> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
}

/** successOf is the success envelope of a response (status and parsed JSON body), or null for a failure. */
export function successOf<T>(status: number, parsed: unknown): { code: string; details: T } | null {
  const ok =
    status >= 200 && status < 300 && typeof parsed === 'object' && parsed !== null && (parsed as { success?: unknown }).success === true;
  return ok ? (parsed as { code: string; details: T }) : null;
}

/** failureOf is the ApiError of a failed response: the API's own error body, or one made up from the status. */
export function failureOf(status: number, parsed: unknown, requestId: string | null): ApiError {
  const e = parsed as Partial<ErrorBody> | undefined;
  return e && typeof e.message === 'string' && typeof e.code === 'string'
    ? new ApiError(e.message, e.code, status, toDetails(e.details), e.request_id, toFacts(e.details))
    : new ApiError(t('error.http', { status }), 'HTTP_ERROR', status, [], requestId ?? undefined);
}

type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** Path is a path of the OpenAPI document that takes method. */
export type Path<M extends Method> = ClientPathsWithMethod<Client<paths>, M>;

/** Init is what a call of method on path takes: its path parameters, query and body as the document has them, and fetch's options (signal, headers). */
type Init<M extends Method, P extends Path<M>> = MaybeOptionalInit<paths[P], M>;

/** Args is a call's init, which may be left out when nothing in it is required. */
type Args<M extends Method, P extends Path<M>> = undefined extends Init<M, P> ? [init?: Init<M, P>] : [init: Init<M, P>];

/** Details is what a call answers: the details of its success envelope (undefined for a 204). */
export type Details<M extends Method, P extends Path<M>> = Envelope<paths[P][M]> extends { details: infer D } ? D : undefined;

/** Envelope is the JSON body of an operation's success. */
type Envelope<Op> = Op extends Record<string, unknown> ? NonNullable<FetchResponse<Op, object, 'application/json'>['data']> : never;

/** Send is openapi-fetch's request, its types left to the methods that call it (they take them from the document). */
type Send = (method: string, path: string, init?: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * client is an openapi-fetch client of the API on this page's origin: it
 * asks for JSON, serialises queries as the API reads them, signs each
 * request when token is given, and turns a failure to connect into the
 * network error (an abort stays itself).
 */
function client(token: TokenSource | null): Send {
  const c = createClient<paths>({
    baseUrl: location.origin,
    headers: { Accept: 'application/json' },
    querySerializer: (q) => queryString(q as Query),
    // The fetch of the moment (tests replace it).
    fetch: (req) => fetch(req),
  });
  c.use({
    async onRequest({ request }) {
      if (token) request.headers.set('Authorization', `Bearer ${await token()}`);
      return request;
    },
    onError({ error }) {
      if (error instanceof DOMException && error.name === 'AbortError') return error;
      return new ApiError(t('error.network'), 'NETWORK_ERROR', 0);
    },
  });
  return c.request as unknown as Send;
}

/**
 * Api calls the auditd API: each method takes a path of its OpenAPI
 * document, with the path parameters, query and body the document gives
 * it, and answers the details of the success envelope, typed from the
 * document; every failure is an ApiError. onUnauthorized is told when the
 * API refuses the session's token (expired or revoked), so the app can ask
 * the user to sign in again. Without a token source the calls are not
 * signed (the public endpoints).
 */
export class Api {
  private readonly send: Send;

  constructor(
    private readonly token: TokenSource | null,
    private readonly onUnauthorized: (err: ApiError) => void = () => {},
  ) {
    this.send = client(token);
  }

  private async call(method: Method, path: string, init?: object): Promise<unknown> {
    const { data, error, response } = await this.send(method, path, init);
    if (response.status === 204) return undefined;
    const ok = successOf(response.status, data);
    if (ok) return ok.details;
    throw this.failure(response, response.ok ? data : error);
  }

  /** failure is the error of an answer that is not a success; a 401 to a signed request also signs out. */
  private failure(res: Response, parsed: unknown): ApiError {
    const err = failureOf(res.status, parsed, res.headers.get('X-Request-Id'));
    if (res.status === 401 && this.token) this.onUnauthorized(err);
    return err;
  }

  get<P extends Path<'get'>>(path: P, ...[init]: Args<'get', P>) {
    return this.call('get', path, init) as Promise<Details<'get', P>>;
  }

  post<P extends Path<'post'>>(path: P, ...[init]: Args<'post', P>) {
    return this.call('post', path, init) as Promise<Details<'post', P>>;
  }

  put<P extends Path<'put'>>(path: P, ...[init]: Args<'put', P>) {
    return this.call('put', path, init) as Promise<Details<'put', P>>;
  }

  patch<P extends Path<'patch'>>(path: P, ...[init]: Args<'patch', P>) {
    return this.call('patch', path, init) as Promise<Details<'patch', P>>;
  }

  delete<P extends Path<'delete'>>(path: P, ...[init]: Args<'delete', P>) {
    return this.call('delete', path, init) as Promise<Details<'delete', P>>;
  }

  /**
   * unlisted calls an endpoint the OpenAPI document does not list (the
   * development sign-in): T is what it answers, as its handler has it.
   */
  unlisted<T>(method: Method, path: string, body?: unknown) {
    return this.call(method, path, { body }) as Promise<T>;
  }

  /** blob is the file a GET of path answers (a recording, an export), with the response it came in. */
  async blob<P extends Path<'get'>>(path: P, ...[init]: Args<'get', P>): Promise<{ blob: Blob; response: Response }> {
    const { data, error, response } = await this.send('get', path, { ...init, headers: { Accept: '*/*' }, parseAs: 'blob' });
    if (!response.ok) throw this.failure(response, error);
    return { blob: data as Blob, response };
  }

  /** download saves the file a GET of path answers (an export) under the name the server gives it. */
  async download<P extends Path<'get'>>(path: P, ...init: Args<'get', P>): Promise<string> {
    const { blob, response } = await this.blob(path, ...init);
    const name = /filename="?([^";]+)"?/.exec(response.headers.get('Content-Disposition') ?? '')?.[1] ?? 'export';
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    return name;
  }
}
