// The dashboard's two languages. English is the reference: Spanish must
// have every key (the type checks it). Messages take {name} placeholders.
import { signal } from '@preact/signals';

const en = {
  'app.name': 'auditd',
  'app.skip': 'Skip to content',
  'app.loading': 'Loading…',
  'app.retry': 'Try again',
  'app.reload': 'Reload',
  'app.crashed': 'Something went wrong in the dashboard: {message}',
  'app.notFound': 'There is no page at {path}.',
  'app.notFoundTitle': 'Page not found',
  'app.forbiddenTitle': 'Not allowed',
  'app.forbidden': 'This page needs the {role} role; you have {have}.',
  'app.backHome': 'Go to the start page',
  'app.close': 'Close',
  'app.cancel': 'Cancel',
  'app.refresh': 'Refresh',
  'app.loadMore': 'Load more',
  'app.language': 'Language',

  'error.network': 'The service cannot be reached. Check your connection and try again.',
  'error.http': 'The service answered with status {status} and no explanation.',
  'error.requestId': 'Request id: {id}',

  'nav.label': 'Main',
  'nav.profile': 'Profile',
  'nav.notifications': 'Notifications',
  'nav.admin': 'Administration',
  'nav.jobs': 'Background jobs',

  'role.none': 'no role',
  'role.operator': 'operator',
  'role.quality': 'quality analyst',
  'role.supervisor': 'supervisor',
  'role.admin': 'administrator',

  'signin.title': 'Sign in to auditd',
  'signin.intro': 'Audits of calls and chats for your contact centre.',
  'signin.oidc': 'Sign in with your organisation account',
  'signin.redirecting': 'Taking you to your identity provider…',
  'signin.notConfigured': 'Sign-in is not configured: the service needs OIDC_WEB_CLIENT_ID (the dashboard’s client id at {issuer}).',
  'signin.dev': 'Development sign-in',
  'signin.devNote': 'The service runs with AUTH_DEV=true: choose any user and roles. Never use this in production.',
  'signin.username': 'Username',
  'signin.usernameHelp': 'Letters, digits and . _ @ - (it is also the user id).',
  'signin.name': 'Display name (optional)',
  'signin.roles': 'Roles',
  'signin.lifetime': 'Token lifetime in seconds',
  'signin.submit': 'Sign in',
  'signin.submitting': 'Signing in…',
  'signin.expired': 'Your session ended. Sign in again.',
  'signin.callbackFailed': 'Sign-in did not complete: {message}',
  'signin.configFailed': 'The sign-in settings could not be loaded: {message}',

  'user.menu': ', account menu',
  'user.signedInAs': 'Signed in as',
  'user.signOut': 'Sign out',

  'profile.title': 'Your profile',
  'profile.name': 'Name',
  'profile.username': 'Username',
  'profile.email': 'E-mail',
  'profile.id': 'User id',
  'profile.role': 'Role',
  'profile.roles': 'Roles in your token',
  'profile.noRoles': 'none',
  'profile.since': 'Known since',
  'profile.lastSeen': 'Last seen',
  'profile.unread': 'Unread notifications',
  'profile.session': 'Session',
  'profile.sessionDev': 'Development sign-in; token valid until {time}',
  'profile.sessionOidc': 'Signed in through {issuer}; token valid until {time}',

  'notif.bell': 'Notifications',
  'notif.bellUnread': 'Notifications, {count} unread',
  'notif.title': 'Notifications',
  'notif.summary': '{unread} unread of {total}',
  'notif.empty': 'No notifications.',
  'notif.seeAll': 'See all notifications',
  'notif.markRead': 'Mark as read',
  'notif.markUnread': 'Mark as unread',
  'notif.delete': 'Delete',
  'notif.deleteAll': 'Delete all',
  'notif.deleteAllTitle': 'Delete all your notifications?',
  'notif.deleteAllBody': 'This deletes all your notifications for good. Notifications for everyone stay.',
  'notif.deleteAllConfirm': 'Delete them',
  'notif.deletedAll': 'Deleted {count} notifications.',
  'notif.global': 'For everyone',
  'notif.unread': 'Unread',
  'notif.open': 'Open',
  'notif.live': 'Live',
  'notif.connecting': 'Connecting…',
  'notif.reconnecting': 'Reconnecting…',
  'variant.success': 'Success',
  'variant.info': 'Information',
  'variant.warning': 'Warning',
  'variant.error': 'Error',

  'jobs.title': 'Background jobs',
  'jobs.filters': 'Filters',
  'jobs.state': 'State',
  'jobs.kind': 'Kinds',
  'jobs.kindHelp': 'Comma-separated, e.g. canary',
  'jobs.queue': 'Queues',
  'jobs.kindColumn': 'Kind',
  'jobs.queueColumn': 'Queue',
  'jobs.limit': 'Per page',
  'jobs.apply': 'Apply filters',
  'jobs.reset': 'Clear filters',
  'jobs.canary': 'Run canary job',
  'jobs.canaryHelp': 'Inserts a no-op job and waits for a worker to finish it.',
  'jobs.canaryRunning': 'Waiting for a worker…',
  'jobs.canaryOk': 'Canary job #{id} completed in {ms} ms: workers are taking jobs.',
  'jobs.empty': 'No jobs match these filters.',
  'jobs.id': 'Id',
  'jobs.attempt': 'Attempt',
  'jobs.created': 'Created',
  'jobs.finalized': 'Finished',
  'jobs.actions': 'Actions',
  'jobs.retry': 'Retry',
  'jobs.cancel': 'Cancel job',
  'jobs.retried': 'Job #{id} is {state}.',
  'jobs.cancelled': 'Job #{id} is {state}.',
  'jobs.details': 'Details',
  'jobs.args': 'Arguments',
  'jobs.errors': 'Errors',
  'jobs.noErrors': 'No failed attempts.',
  'jobs.attemptError': 'Attempt {attempt}, {time}: {error}',
  'jobs.caption': 'Jobs, newest first',

  'nav.tasks': 'Tasks',
  'status.queued': 'queued',
  'status.transcribing': 'transcribing',
  'status.transcribed': 'transcribed',
  'status.auditing': 'auditing',
  'status.audited': 'audited',
  'status.validated': 'validated',
  'status.failed': 'failed',
  'task.passed': 'pass',
  'task.failed': 'fail',
  'tasks.title': 'Tasks',
  'tasks.filters': 'Task filters',
  'tasks.search': 'File name contains',
  'tasks.status': 'Status',
  'tasks.kind': 'Kind',
  'tasks.any': 'Any',
  'tasks.call': 'Call',
  'tasks.chat': 'Chat',
  'tasks.campaign': 'Campaign',
  'tasks.operator': 'Agent',
  'tasks.file': 'File',
  'tasks.score': 'Score',
  'tasks.created': 'Uploaded',
  'tasks.apply': 'Apply filters',
  'tasks.reset': 'Clear filters',
  'tasks.empty': 'No tasks match these filters.',
  'tasks.count': 'Showing {shown} of {total} tasks',
  'tasks.caption': 'Tasks',
  'upload.title': 'Upload calls and chats',
  'upload.campaign': 'Campaign',
  'upload.operator': 'Agent (optional)',
  'upload.operatorHelp': 'User id or username of the audited agent.',
  'upload.drop': 'Drop recordings (WAV, MP3, OGG…) or chat transcripts (JSON or text) here, as many as you like.',
  'upload.choose': 'Choose files',
  'upload.files': 'Uploads',
  'upload.progress': 'Upload of {name}',
  'upload.duplicate': 'already uploaded',
  'upload.open': 'Open',
  'task.back': 'All tasks',
  'task.transcript': 'Transcript',
  'task.noTranscript': 'No transcript yet.',
  'task.audit': 'Audit',
  'task.noAudit': 'Not audited yet.',
  'task.recording': 'Recording',
  'task.seek': 'Play from {time}',
  'speaker.agent': 'Agent',
  'speaker.customer': 'Customer',
  'speaker.unknown': 'Unknown',
  'audit.summary': 'Revision {revision} by {who}, scorecard version {version}; passing score {passing}.',
  'audit.critical': 'critical',
  'audit.explanation': 'Explanation: {question}',
  'audit.save': 'Save and recompute ({count} changed)',
  'audit.saving': 'Recomputing…',
  'audit.discard': 'Discard changes',
  'audit.saved': 'Saved as revision {revision}: score {score}, {result}.',
  'audit.accepted': 'The edit is recorded; the score is still being recomputed (job #{job}) and will appear here when ready.',
  'revisions.title': 'Revisions',
  'revisions.revision': 'Revision',
  'revisions.source': 'Source',
  'revisions.author': 'By',
  'revisions.when': 'When',
  'source.engine': 'automatic audit',
  'source.analyst': 'analyst edit',
  'source.recompute': 'new scorecard',
  'validate.open': 'Validate',
  'validate.title': 'Validate the audit',
  'validate.notes': 'Notes for the e-mail',
  'validate.attachments': 'Attachments (optional)',
  'validate.submit': 'Validate and send',
  'validate.sending': 'Sending…',
  'validate.done': 'The audit is validated and the e-mail was sent.',
  'validate.pending': 'The audit is validated; the e-mail is still being delivered.',
  'validate.sentTo': 'Sent to',
  'validate.bcc': 'Blind copy',
};

export type MessageKey = keyof typeof en;

const es: Record<MessageKey, string> = {
  'app.name': 'auditd',
  'app.skip': 'Saltar al contenido',
  'app.loading': 'Cargando…',
  'app.retry': 'Reintentar',
  'app.reload': 'Recargar',
  'app.crashed': 'Algo ha fallado en el panel: {message}',
  'app.notFound': 'No hay ninguna página en {path}.',
  'app.notFoundTitle': 'Página no encontrada',
  'app.forbiddenTitle': 'Acceso no permitido',
  'app.forbidden': 'Esta página requiere el rol {role}; tienes {have}.',
  'app.backHome': 'Ir a la página de inicio',
  'app.close': 'Cerrar',
  'app.cancel': 'Cancelar',
  'app.refresh': 'Actualizar',
  'app.loadMore': 'Cargar más',
  'app.language': 'Idioma',

  'error.network': 'No se puede contactar con el servicio. Comprueba la conexión y vuelve a intentarlo.',
  'error.http': 'El servicio respondió con el estado {status} sin explicación.',
  'error.requestId': 'Id de la petición: {id}',

  'nav.label': 'Principal',
  'nav.profile': 'Perfil',
  'nav.notifications': 'Notificaciones',
  'nav.admin': 'Administración',
  'nav.jobs': 'Trabajos en segundo plano',

  'role.none': 'sin rol',
  'role.operator': 'operador',
  'role.quality': 'analista de calidad',
  'role.supervisor': 'supervisor',
  'role.admin': 'administrador',

  'signin.title': 'Iniciar sesión en auditd',
  'signin.intro': 'Auditorías de llamadas y chats para tu centro de contacto.',
  'signin.oidc': 'Iniciar sesión con la cuenta de tu organización',
  'signin.redirecting': 'Te llevamos a tu proveedor de identidad…',
  'signin.notConfigured':
    'El inicio de sesión no está configurado: el servicio necesita OIDC_WEB_CLIENT_ID (el id de cliente del panel en {issuer}).',
  'signin.dev': 'Inicio de sesión de desarrollo',
  'signin.devNote': 'El servicio se ejecuta con AUTH_DEV=true: elige cualquier usuario y roles. No lo uses nunca en producción.',
  'signin.username': 'Usuario',
  'signin.usernameHelp': 'Letras, dígitos y . _ @ - (también es el id del usuario).',
  'signin.name': 'Nombre visible (opcional)',
  'signin.roles': 'Roles',
  'signin.lifetime': 'Validez del token en segundos',
  'signin.submit': 'Iniciar sesión',
  'signin.submitting': 'Iniciando sesión…',
  'signin.expired': 'Tu sesión ha terminado. Vuelve a iniciar sesión.',
  'signin.callbackFailed': 'El inicio de sesión no se completó: {message}',
  'signin.configFailed': 'No se pudo cargar la configuración de inicio de sesión: {message}',

  'user.menu': ', menú de la cuenta',
  'user.signedInAs': 'Sesión iniciada como',
  'user.signOut': 'Cerrar sesión',

  'profile.title': 'Tu perfil',
  'profile.name': 'Nombre',
  'profile.username': 'Usuario',
  'profile.email': 'Correo electrónico',
  'profile.id': 'Id de usuario',
  'profile.role': 'Rol',
  'profile.roles': 'Roles en tu token',
  'profile.noRoles': 'ninguno',
  'profile.since': 'Registrado desde',
  'profile.lastSeen': 'Última actividad',
  'profile.unread': 'Notificaciones sin leer',
  'profile.session': 'Sesión',
  'profile.sessionDev': 'Inicio de sesión de desarrollo; token válido hasta {time}',
  'profile.sessionOidc': 'Sesión iniciada mediante {issuer}; token válido hasta {time}',

  'notif.bell': 'Notificaciones',
  'notif.bellUnread': 'Notificaciones, {count} sin leer',
  'notif.title': 'Notificaciones',
  'notif.summary': '{unread} sin leer de {total}',
  'notif.empty': 'No hay notificaciones.',
  'notif.seeAll': 'Ver todas las notificaciones',
  'notif.markRead': 'Marcar como leída',
  'notif.markUnread': 'Marcar como no leída',
  'notif.delete': 'Eliminar',
  'notif.deleteAll': 'Eliminar todas',
  'notif.deleteAllTitle': '¿Eliminar todas tus notificaciones?',
  'notif.deleteAllBody': 'Se eliminarán definitivamente todas tus notificaciones. Las notificaciones para todos se mantienen.',
  'notif.deleteAllConfirm': 'Eliminarlas',
  'notif.deletedAll': 'Se eliminaron {count} notificaciones.',
  'notif.global': 'Para todos',
  'notif.unread': 'Sin leer',
  'notif.open': 'Abrir',
  'notif.live': 'En directo',
  'notif.connecting': 'Conectando…',
  'notif.reconnecting': 'Reconectando…',
  'variant.success': 'Éxito',
  'variant.info': 'Información',
  'variant.warning': 'Aviso',
  'variant.error': 'Error',

  'jobs.title': 'Trabajos en segundo plano',
  'jobs.filters': 'Filtros',
  'jobs.state': 'Estado',
  'jobs.kind': 'Tipos',
  'jobs.kindHelp': 'Separados por comas, p. ej. canary',
  'jobs.queue': 'Colas',
  'jobs.kindColumn': 'Tipo',
  'jobs.queueColumn': 'Cola',
  'jobs.limit': 'Por página',
  'jobs.apply': 'Aplicar filtros',
  'jobs.reset': 'Quitar filtros',
  'jobs.canary': 'Lanzar trabajo canario',
  'jobs.canaryHelp': 'Inserta un trabajo vacío y espera a que un proceso lo termine.',
  'jobs.canaryRunning': 'Esperando a un proceso…',
  'jobs.canaryOk': 'El trabajo canario #{id} terminó en {ms} ms: los procesos están tomando trabajos.',
  'jobs.empty': 'Ningún trabajo coincide con estos filtros.',
  'jobs.id': 'Id',
  'jobs.attempt': 'Intento',
  'jobs.created': 'Creado',
  'jobs.finalized': 'Terminado',
  'jobs.actions': 'Acciones',
  'jobs.retry': 'Reintentar',
  'jobs.cancel': 'Cancelar trabajo',
  'jobs.retried': 'El trabajo #{id} está {state}.',
  'jobs.cancelled': 'El trabajo #{id} está {state}.',
  'jobs.details': 'Detalles',
  'jobs.args': 'Argumentos',
  'jobs.errors': 'Errores',
  'jobs.noErrors': 'Ningún intento fallido.',
  'jobs.attemptError': 'Intento {attempt}, {time}: {error}',
  'jobs.caption': 'Trabajos, los más recientes primero',

  'nav.tasks': 'Tareas',
  'status.queued': 'en cola',
  'status.transcribing': 'transcribiendo',
  'status.transcribed': 'transcrita',
  'status.auditing': 'auditando',
  'status.audited': 'auditada',
  'status.validated': 'validada',
  'status.failed': 'fallida',
  'task.passed': 'aprobada',
  'task.failed': 'suspendida',
  'tasks.title': 'Tareas',
  'tasks.filters': 'Filtros de tareas',
  'tasks.search': 'El nombre del archivo contiene',
  'tasks.status': 'Estado',
  'tasks.kind': 'Tipo',
  'tasks.any': 'Cualquiera',
  'tasks.call': 'Llamada',
  'tasks.chat': 'Chat',
  'tasks.campaign': 'Campaña',
  'tasks.operator': 'Agente',
  'tasks.file': 'Archivo',
  'tasks.score': 'Puntuación',
  'tasks.created': 'Subida',
  'tasks.apply': 'Aplicar filtros',
  'tasks.reset': 'Quitar filtros',
  'tasks.empty': 'Ninguna tarea coincide con estos filtros.',
  'tasks.count': 'Se muestran {shown} de {total} tareas',
  'tasks.caption': 'Tareas',
  'upload.title': 'Subir llamadas y chats',
  'upload.campaign': 'Campaña',
  'upload.operator': 'Agente (opcional)',
  'upload.operatorHelp': 'Id o nombre de usuario del agente auditado.',
  'upload.drop': 'Suelta aquí grabaciones (WAV, MP3, OGG…) o transcripciones de chat (JSON o texto), tantas como quieras.',
  'upload.choose': 'Elegir archivos',
  'upload.files': 'Subidas',
  'upload.progress': 'Subida de {name}',
  'upload.duplicate': 'ya subida',
  'upload.open': 'Abrir',
  'task.back': 'Todas las tareas',
  'task.transcript': 'Transcripción',
  'task.noTranscript': 'Aún no hay transcripción.',
  'task.audit': 'Auditoría',
  'task.noAudit': 'Aún no está auditada.',
  'task.recording': 'Grabación',
  'task.seek': 'Reproducir desde {time}',
  'speaker.agent': 'Agente',
  'speaker.customer': 'Cliente',
  'speaker.unknown': 'Desconocido',
  'audit.summary': 'Revisión {revision} de {who}, versión {version} del formulario; aprueba con {passing}.',
  'audit.critical': 'crítico',
  'audit.explanation': 'Explicación: {question}',
  'audit.save': 'Guardar y recalcular ({count} cambios)',
  'audit.saving': 'Recalculando…',
  'audit.discard': 'Descartar cambios',
  'audit.saved': 'Guardado como revisión {revision}: puntuación {score}, {result}.',
  'audit.accepted': 'La edición está guardada; la puntuación aún se está recalculando (trabajo #{job}) y aparecerá aquí cuando esté lista.',
  'revisions.title': 'Revisiones',
  'revisions.revision': 'Revisión',
  'revisions.source': 'Origen',
  'revisions.author': 'Autor',
  'revisions.when': 'Cuándo',
  'source.engine': 'auditoría automática',
  'source.analyst': 'edición del analista',
  'source.recompute': 'nuevo formulario',
  'validate.open': 'Validar',
  'validate.title': 'Validar la auditoría',
  'validate.notes': 'Observaciones para el correo',
  'validate.attachments': 'Adjuntos (opcional)',
  'validate.submit': 'Validar y enviar',
  'validate.sending': 'Enviando…',
  'validate.done': 'La auditoría está validada y el correo se ha enviado.',
  'validate.pending': 'La auditoría está validada; el correo aún se está entregando.',
  'validate.sentTo': 'Enviado a',
  'validate.bcc': 'Copia oculta',
};

export type Locale = 'en' | 'es';
export const locales: Record<Locale, string> = { en: 'English', es: 'Español' };
const catalogs: Record<Locale, Record<MessageKey, string>> = { en, es };
const storageKey = 'auditd.locale';

function initialLocale(): Locale {
  const saved = localStorage.getItem(storageKey);
  if (saved === 'en' || saved === 'es') return saved;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const lang = tag.toLowerCase().split('-')[0];
    if (lang === 'en' || lang === 'es') return lang;
  }
  return 'en';
}

/** locale is the UI language; components that call t() re-render when it changes. */
export const locale = signal<Locale>(initialLocale());
document.documentElement.lang = locale.value;

/** setLocale switches the UI language and remembers the choice in this browser. */
export function setLocale(l: Locale) {
  localStorage.setItem(storageKey, l);
  document.documentElement.lang = l;
  locale.value = l;
}

/** t returns the message for key in the current language, with {name} placeholders filled. */
export function t(key: MessageKey, vars?: Record<string, string | number>): string {
  const msg = catalogs[locale.value][key];
  if (!vars) return msg;
  return msg.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

/** formatDateTime shows an ISO time as a date and time in the current language. */
export function formatDateTime(iso: string | undefined | null): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat(locale.value, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(iso));
}

/** clock ticks every 30 seconds, so relative times ("3 minutes ago") stay true on screen. */
const clock = signal(Date.now());
setInterval(() => {
  clock.value = Date.now();
}, 30_000);

/** formatRelative shows how long ago (or until) an ISO time is, e.g. "3 minutes ago". */
export function formatRelative(iso: string, now?: number): string {
  // Reading the clock re-renders every tick; Date.now() keeps a time that
  // arrived since the last tick from reading as the future.
  const at = now ?? Math.max(clock.value, Date.now());
  const seconds = Math.round((new Date(iso).getTime() - at) / 1000);
  const rtf = new Intl.RelativeTimeFormat(locale.value, { numeric: 'auto' });
  const abs = Math.abs(seconds);
  if (abs < 60) return rtf.format(seconds, 'second');
  if (abs < 3600) return rtf.format(Math.round(seconds / 60), 'minute');
  if (abs < 86400) return rtf.format(Math.round(seconds / 3600), 'hour');
  return rtf.format(Math.round(seconds / 86400), 'day');
}

/** roleName is a role as people read it, in the current language. */
export function roleName(role: string): string {
  const key = `role.${role}` as MessageKey;
  return key in en ? t(key) : role;
}
