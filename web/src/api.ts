// The API client: every call goes through request(), which adds the access
// token, unwraps the success envelope and turns every failure into an
// ApiError. What a person reads of it comes from its code, translated
// (errorMessage); the API's own words (in English) come second.
import { t, type MessageKey } from './i18n';
import type { components } from './openapi';

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

interface ErrorBody {
  success: false;
  code: string;
  message: string;
  details?: unknown;
  request_id?: string;
}

/** Query is a request's query string; arrays repeat the parameter, empty values are left out. */
export type Query = Record<string, string | number | boolean | string[] | undefined | null>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** form is a multipart body, sent instead of body. */
  form?: FormData;
  headers?: Record<string, string>;
  /** auth false sends no token (public endpoints). */
  auth?: boolean;
  signal?: AbortSignal;
}

/** TokenSource returns a valid access token, renewing it first when it is about to expire. */
export type TokenSource = () => Promise<string>;

export function buildURL(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null || v === '') continue;
    for (const one of Array.isArray(v) ? v : [v]) params.append(k, String(one));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
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

/**
 * Api calls the auditd API on this page's origin. onUnauthorized is told
 * when the API refuses the session's token (expired or revoked), so the app
 * can ask the user to sign in again.
 */
export class Api {
  constructor(
    private readonly token: TokenSource,
    private readonly onUnauthorized: (err: ApiError) => void,
  ) {}

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    return (await this.send<T>(method, path, opts)).details;
  }

  /** send is request with the success's status and code, for endpoints whose successes differ (200 or 202). */
  async send<T>(method: string, path: string, opts: RequestOptions = {}): Promise<{ status: number; code: string; details: T }> {
    const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
    if (opts.auth !== false) headers.Authorization = `Bearer ${await this.token()}`;
    let body: string | FormData | undefined;
    if (opts.form) body = opts.form;
    else if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const res = await reach(buildURL(path, opts.query), { method, headers, body, signal: opts.signal });
    if (res.status === 204) return { status: 204, code: 'NO_CONTENT', details: undefined as T };
    const parsed = await jsonOf(res);
    const ok = successOf<T>(res.status, parsed);
    if (ok) return { status: res.status, code: ok.code, details: ok.details };
    throw this.failure(res, parsed, opts.auth !== false);
  }

  /** failure is the error of an answer that is not a success; a 401 to a signed request also signs out. */
  private failure(res: Response, parsed: unknown, signed: boolean): ApiError {
    const err = failureOf(res.status, parsed, res.headers.get('X-Request-Id'));
    if (res.status === 401 && signed) this.onUnauthorized(err);
    return err;
  }

  /** download saves the file a GET of path answers (an export) under the name the server gives it. */
  async download(path: string, query?: Query): Promise<string> {
    const res = await reach(buildURL(path, query), { headers: { Authorization: `Bearer ${await this.token()}` } });
    if (!res.ok) throw this.failure(res, await jsonOf(res), true);
    const name = /filename="?([^";]+)"?/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? 'export';
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    return name;
  }

  get<T>(path: string, query?: Query, signal?: AbortSignal) {
    return this.request<T>('GET', path, { query, signal });
  }

  post<T>(path: string, body?: unknown) {
    return this.request<T>('POST', path, { body });
  }

  patch<T>(path: string, body?: unknown) {
    return this.request<T>('PATCH', path, { body });
  }

  delete<T>(path: string, query?: Query) {
    return this.request<T>('DELETE', path, { query });
  }
}

/** reach fetches url, a failure to connect as the network error (an abort as itself). */
async function reach(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(t('error.network'), 'NETWORK_ERROR', 0);
  }
}

/** jsonOf is res's body as JSON, or undefined when it is not JSON. */
async function jsonOf(res: Response): Promise<unknown> {
  try {
    return await res.json();
  } catch {
    return undefined;
  }
}

/** publicRequest calls an endpoint that needs no token (sign-in settings, development sign-in). */
export function publicRequest<T>(method: string, path: string, body?: unknown): Promise<T> {
  const api = new Api(
    () => Promise.resolve(''),
    () => {},
  );
  return api.request<T>(method, path, { body, auth: false });
}
