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
  'error.fields': 'Check: {fields}.',
  'error.code.MISSING_AUTH_HEADER': 'You are not signed in.',
  'error.code.UNAUTHORIZED': 'Your session is not valid any more. Sign in again.',
  'error.code.FORBIDDEN': 'Your role does not allow this.',
  'error.code.MISSING_FIELDS': 'Some required fields are missing.',
  'error.code.VALIDATION_ERROR': 'Some of what you sent is not valid.',
  'error.code.NOT_FOUND': 'It does not exist, or no longer does.',
  'error.code.METHOD_NOT_ALLOWED': 'The service does not allow this action here.',
  'error.code.CONFLICT': 'It has changed meanwhile, or its state does not allow this.',
  'error.code.PAYLOAD_TOO_LARGE': 'What you sent is larger than the limit.',
  'error.code.UNSUPPORTED_MEDIA_TYPE': 'The file is not of a kind the service accepts.',
  'error.code.PRECONDITION_FAILED': 'The recording has changed since it was opened.',
  'error.code.RANGE_NOT_SATISFIABLE': 'The requested part of the recording does not exist.',
  'error.code.HEADERS_TOO_LARGE': 'The request is too large to read.',
  'error.code.RATE_LIMITED': 'Too many requests in a short time. Wait a moment and try again.',
  'error.code.REQUEST_TIMEOUT': 'The request took too long to arrive. Try again.',
  'error.code.INTERNAL_ERROR': 'The service failed unexpectedly. Try again; if it persists, report the request id.',
  'error.code.EMAIL_SEND_ERROR': 'The mail server refused the e-mail.',
  'error.code.SERVICE_UNAVAILABLE': 'The service is unavailable for a moment. Try again shortly.',

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
  'jobs.riverUI': 'Open River UI',
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
  'tasks.exportCSV': 'Export CSV',
  'tasks.exportXLSX': 'Export Excel',
  'tasks.exportHint': 'The tasks these filters select, with a column per criterion of their audits',
  'tasks.exported': 'Exported {name}',
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
  'tasks.countAbout': 'Showing {shown} of about {total} tasks',
  'tasks.caption': 'Tasks',
  'tasks.review': 'Review',
  'tasks.reviewNeeded': 'Needs review',
  'tasks.reviewNone': 'Nothing to review',
  'upload.title': 'Upload calls and chats',
  'upload.campaign': 'Campaign',
  'upload.operator': 'Agent (optional)',
  'upload.operatorHelp': 'User id or username of the audited agent.',
  'upload.drop': 'Drop recordings (WAV, MP3, OGG…) or chat transcripts (JSON or text) here, as many as you like.',
  'upload.choose': 'Choose files',
  'upload.language': 'Language (optional)',
  'upload.languageHelp':
    'BCP 47 tag; the campaign’s when empty (a call’s: the speech engine’s when it does not transcribe the campaign’s).',
  'upload.speech': 'Calls are transcribed in {languages}, by {engine}.',
  'upload.speechAny': 'Calls are transcribed in any language, by {engine}.',
  'upload.speechNone': 'No speech engine is configured: calls wait until one is.',
  'upload.languageRefused':
    '{file} is a call in {language}, which the speech engine does not transcribe: it transcribes {languages}. Upload it with the language it is spoken in, or ask an administrator for an engine that speaks it.',
  'upload.files': 'Uploads',
  'upload.progress': 'Upload of {name}',
  'upload.duplicate': 'already uploaded',
  'upload.open': 'Open',
  'task.back': 'All tasks',
  'task.retry': 'Retry',
  'task.retried': 'Sent back to the step it failed at; it moves on shortly.',
  'task.failedBecause': 'It failed: {error}',
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
  'review.badge': 'Needs review',
  'review.count': '{count} to review',
  'review.group': 'Needs review ({count})',
  'review.automatic': 'Automatic: {basis}, {confidence} confidence',
  'review.confirm': 'Confirm verdict',
  'review.yours': 'Your verdict: saved with the changes.',
  'basis.evidence': 'evidence (quoted)',
  'basis.absence': 'absence (nothing found)',
  'basis.conflict': 'conflict (signals point both ways)',
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
  'task.turn': 'Turn {n}',
  'audit.weight': 'weight {weight}',
  'audit.subtotal': '{earned} of {possible} points',
  'audit.total': 'Total: {earned} of {possible} points, score {score}.',
  'audit.rules':
    'The score is the weight of the criteria met over the weight of those that apply, out of 100; it passes at {passing}. A failed critical criterion makes the score 0.',
  'audit.evidence': 'Go to turn {n}',
  'audit.unsaved': 'This audit has changes that are not saved. Leave and lose them?',
  'engine.rules': 'the rules engine',
  'engine.llm': 'the language model {model}',
  'engine.hybrid': 'the rules engine and the language model {model}',
  'category.OPENING': 'Opening',
  'category.SKILLS': 'Skills',
  'category.COMPLIANCE': 'Compliance',
  'category.CLOSING': 'Closing',
  'jobState.available': 'available',
  'jobState.cancelled': 'cancelled',
  'jobState.completed': 'completed',
  'jobState.discarded': 'discarded',
  'jobState.pending': 'pending',
  'jobState.retryable': 'to retry',
  'jobState.running': 'running',
  'jobState.scheduled': 'scheduled',
  'validation.title': 'Validation',
  'validation.by': 'Validated by',
  'validation.at': 'When',
  'validation.revision': 'Audit revision',
  'validation.notes': 'Notes',
  'validation.attachments': 'Attachments',
  'validation.email': 'E-mail',
  'validation.attempt': '1 attempt',
  'validation.attempts': '{attempts} attempts',
  'validation.sentAt': 'accepted by the mail server on {time}',
  'emailStatus.sent': 'sent',
  'emailStatus.pending': 'being delivered',
  'emailStatus.failed': 'not delivered',
  'validate.recipients': 'The e-mail will go to {to}.',
  'validate.recipientsBcc': 'Blind copy to {bcc}.',
  'validate.toValidator':
    'Nobody else has an e-mail address (the agent’s is unknown and the campaign has no supervisors), so it goes to you alone.',
  'nav.dashboard': 'Dashboard',
  'dash.title': 'Dashboard',
  'dash.filters': 'Dashboard filters',
  'dash.from': 'From',
  'dash.to': 'To (not included)',
  'dash.tasks': 'Tasks',
  'dash.audited': 'Audited',
  'dash.passed': 'Passed',
  'dash.approval': 'Approval rate',
  'dash.average': 'Average score',
  'dash.validated': 'Validated',
  'dash.minutes': 'Minutes of audio',
  'dash.automatic': 'Confirmed automatically',
  'dash.automaticOf': '({confident} of {verdicts} automatic verdicts)',
  'dash.perDay': 'Tasks per day',
  'dash.distribution': 'Score distribution',
  'dash.approvalPerDay': 'Approval rate per day (%)',
  'dash.criteria': 'Criteria failed most',
  'dash.failedRate': 'Failed (%)',
  'dash.criterion': 'Criterion',
  'dash.operators': 'Agents by average score',
  'dash.day': 'Day',
  'dash.range': 'Score range',
  'dash.data': 'Figures as a table',
  'dash.empty': 'Nothing in this period.',
  'nav.campaigns': 'Campaigns',
  'nav.users': 'Users',
  'users.title': 'Users',
  'users.sync': 'Sync users now',
  'users.syncStarted': 'Sync with {provider} started (job #{job}); you will be notified when it ends.',
  'users.syncRunning': 'A sync with {provider} is already running (job #{job}).',
  'users.search': 'Username, e-mail or name contains',
  'users.active': 'Active',
  'users.yes': 'yes',
  'users.no': 'no',
  'camp.title': 'Campaigns',
  'camp.passing': 'Passing score',
  'camp.language': 'Language',
  'camp.version': 'Scorecard version',
  'camp.edit': 'Edit',
  'camp.settings': 'Settings of {name}',
  'camp.emails': 'Supervisors’ e-mails (comma-separated)',
  'camp.save': 'Save settings',
  'camp.saved': 'Settings saved.',
  'camp.scorecard': 'Scorecard (version {version})',
  'camp.criteria': 'Criteria (JSON)',
  'camp.publish': 'Publish a new version',
  'camp.published': 'Version {version} published; audits are being recomputed (job #{job}).',
  'camp.badJson': 'The criteria are not valid JSON: {message}',
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
  'error.fields': 'Revisa: {fields}.',
  'error.code.MISSING_AUTH_HEADER': 'No has iniciado sesión.',
  'error.code.UNAUTHORIZED': 'Tu sesión ya no es válida. Vuelve a iniciar sesión.',
  'error.code.FORBIDDEN': 'Tu rol no permite hacer esto.',
  'error.code.MISSING_FIELDS': 'Faltan campos obligatorios.',
  'error.code.VALIDATION_ERROR': 'Parte de lo que has enviado no es válido.',
  'error.code.NOT_FOUND': 'No existe, o ya no existe.',
  'error.code.METHOD_NOT_ALLOWED': 'El servicio no permite esta acción aquí.',
  'error.code.CONFLICT': 'Ha cambiado mientras tanto, o su estado no permite esto.',
  'error.code.PAYLOAD_TOO_LARGE': 'Lo que has enviado supera el límite de tamaño.',
  'error.code.UNSUPPORTED_MEDIA_TYPE': 'El archivo no es de un tipo que el servicio acepte.',
  'error.code.PRECONDITION_FAILED': 'La grabación ha cambiado desde que se abrió.',
  'error.code.RANGE_NOT_SATISFIABLE': 'La parte pedida de la grabación no existe.',
  'error.code.HEADERS_TOO_LARGE': 'La petición es demasiado grande para leerla.',
  'error.code.RATE_LIMITED': 'Demasiadas peticiones en poco tiempo. Espera un momento y vuelve a intentarlo.',
  'error.code.REQUEST_TIMEOUT': 'La petición tardó demasiado en llegar. Vuelve a intentarlo.',
  'error.code.INTERNAL_ERROR': 'El servicio ha fallado de forma inesperada. Vuelve a intentarlo; si persiste, indica el id de la petición.',
  'error.code.EMAIL_SEND_ERROR': 'El servidor de correo rechazó el e-mail.',
  'error.code.SERVICE_UNAVAILABLE': 'El servicio no está disponible en este momento. Vuelve a intentarlo en breve.',

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
  'jobs.riverUI': 'Abrir River UI',
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
  'tasks.exportCSV': 'Exportar CSV',
  'tasks.exportXLSX': 'Exportar Excel',
  'tasks.exportHint': 'Las tareas que seleccionan estos filtros, con una columna por criterio de sus auditorías',
  'tasks.exported': 'Exportado {name}',
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
  'tasks.countAbout': 'Se muestran {shown} de unas {total} tareas',
  'tasks.caption': 'Tareas',
  'tasks.review': 'Revisión pendiente',
  'tasks.reviewNeeded': 'Requiere revisión',
  'tasks.reviewNone': 'Nada que revisar',
  'upload.title': 'Subir llamadas y chats',
  'upload.campaign': 'Campaña',
  'upload.operator': 'Agente (opcional)',
  'upload.operatorHelp': 'Id o nombre de usuario del agente auditado.',
  'upload.drop': 'Suelta aquí grabaciones (WAV, MP3, OGG…) o transcripciones de chat (JSON o texto), tantas como quieras.',
  'upload.choose': 'Elegir archivos',
  'upload.language': 'Idioma (opcional)',
  'upload.languageHelp':
    'Etiqueta BCP 47; el de la campaña si se deja vacío (el de una llamada: el del motor de voz si no transcribe el de la campaña).',
  'upload.speech': 'Las llamadas se transcriben en {languages}, con {engine}.',
  'upload.speechAny': 'Las llamadas se transcriben en cualquier idioma, con {engine}.',
  'upload.speechNone': 'No hay motor de voz configurado: las llamadas esperan a que lo haya.',
  'upload.languageRefused':
    '{file} es una llamada en {language}, que el motor de voz no transcribe: transcribe {languages}. Súbela con el idioma en que se habla o pide a un administrador un motor que lo hable.',
  'upload.files': 'Subidas',
  'upload.progress': 'Subida de {name}',
  'upload.duplicate': 'ya subida',
  'upload.open': 'Abrir',
  'task.back': 'Todas las tareas',
  'task.retry': 'Reintentar',
  'task.retried': 'Devuelta al paso en que falló; avanzará en breve.',
  'task.failedBecause': 'Falló: {error}',
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
  'review.badge': 'Revisar',
  'review.count': '{count} por revisar',
  'review.group': 'Revisar ({count})',
  'review.automatic': 'Automático: {basis}, confianza del {confidence}',
  'review.confirm': 'Confirmar veredicto',
  'review.yours': 'Tu veredicto: se guardará con los cambios.',
  'basis.evidence': 'evidencia (citada)',
  'basis.absence': 'ausencia (no se encontró nada)',
  'basis.conflict': 'conflicto (señales contrarias)',
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
  'task.turn': 'Turno {n}',
  'audit.weight': 'peso {weight}',
  'audit.subtotal': '{earned} de {possible} puntos',
  'audit.total': 'Total: {earned} de {possible} puntos, puntuación {score}.',
  'audit.rules':
    'La puntuación es el peso de los criterios cumplidos sobre el de los que aplican, sobre 100; aprueba con {passing}. Un criterio crítico no cumplido deja la puntuación en 0.',
  'audit.evidence': 'Ir al turno {n}',
  'audit.unsaved': 'Esta auditoría tiene cambios sin guardar. ¿Salir y perderlos?',
  'engine.rules': 'el motor de reglas',
  'engine.llm': 'el modelo de lenguaje {model}',
  'engine.hybrid': 'el motor de reglas y el modelo de lenguaje {model}',
  'category.OPENING': 'Apertura',
  'category.SKILLS': 'Habilidades',
  'category.COMPLIANCE': 'Cumplimiento',
  'category.CLOSING': 'Cierre',
  'jobState.available': 'disponible',
  'jobState.cancelled': 'cancelado',
  'jobState.completed': 'completado',
  'jobState.discarded': 'descartado',
  'jobState.pending': 'pendiente',
  'jobState.retryable': 'por reintentar',
  'jobState.running': 'en curso',
  'jobState.scheduled': 'programado',
  'validation.title': 'Validación',
  'validation.by': 'Validada por',
  'validation.at': 'Cuándo',
  'validation.revision': 'Revisión de la auditoría',
  'validation.notes': 'Observaciones',
  'validation.attachments': 'Adjuntos',
  'validation.email': 'Correo',
  'validation.attempt': '1 intento',
  'validation.attempts': '{attempts} intentos',
  'validation.sentAt': 'aceptado por el servidor de correo el {time}',
  'emailStatus.sent': 'enviado',
  'emailStatus.pending': 'entregándose',
  'emailStatus.failed': 'no entregado',
  'validate.recipients': 'El correo irá a {to}.',
  'validate.recipientsBcc': 'Copia oculta a {bcc}.',
  'validate.toValidator':
    'Nadie más tiene dirección de correo (no se conoce la del agente y la campaña no tiene supervisores), así que solo le llega a usted.',
  'nav.dashboard': 'Panel',
  'dash.title': 'Panel de resultados',
  'dash.filters': 'Filtros del panel',
  'dash.from': 'Desde',
  'dash.to': 'Hasta (no incluido)',
  'dash.tasks': 'Tareas',
  'dash.audited': 'Auditadas',
  'dash.passed': 'Aprobadas',
  'dash.approval': 'Tasa de aprobación',
  'dash.average': 'Puntuación media',
  'dash.validated': 'Validadas',
  'dash.minutes': 'Minutos de audio',
  'dash.automatic': 'Confirmados automáticamente',
  'dash.automaticOf': '({confident} de {verdicts} veredictos automáticos)',
  'dash.perDay': 'Tareas por día',
  'dash.distribution': 'Distribución de puntuaciones',
  'dash.approvalPerDay': 'Tasa de aprobación por día (%)',
  'dash.criteria': 'Criterios más incumplidos',
  'dash.failedRate': 'Incumplido (%)',
  'dash.criterion': 'Criterio',
  'dash.operators': 'Agentes por puntuación media',
  'dash.day': 'Día',
  'dash.range': 'Rango de puntuación',
  'dash.data': 'Datos en una tabla',
  'dash.empty': 'Nada en este periodo.',
  'nav.campaigns': 'Campañas',
  'nav.users': 'Usuarios',
  'users.title': 'Usuarios',
  'users.sync': 'Sincronizar usuarios ahora',
  'users.syncStarted': 'Sincronización con {provider} iniciada (trabajo #{job}); se te avisará cuando termine.',
  'users.syncRunning': 'Ya hay una sincronización con {provider} en curso (trabajo #{job}).',
  'users.search': 'El usuario, correo o nombre contiene',
  'users.active': 'Activo',
  'users.yes': 'sí',
  'users.no': 'no',
  'camp.title': 'Campañas',
  'camp.passing': 'Puntuación para aprobar',
  'camp.language': 'Idioma',
  'camp.version': 'Versión del formulario',
  'camp.edit': 'Editar',
  'camp.settings': 'Ajustes de {name}',
  'camp.emails': 'Correos de los supervisores (separados por comas)',
  'camp.save': 'Guardar ajustes',
  'camp.saved': 'Ajustes guardados.',
  'camp.scorecard': 'Formulario (versión {version})',
  'camp.criteria': 'Criterios (JSON)',
  'camp.publish': 'Publicar una versión nueva',
  'camp.published': 'Versión {version} publicada; las auditorías se están recalculando (trabajo #{job}).',
  'camp.badJson': 'Los criterios no son JSON válido: {message}',
};

export type Locale = 'en' | 'es';
export const locales: Record<Locale, string> = { en: 'English', es: 'Español' };
const catalogs: Record<Locale, Record<MessageKey, string>> = { en, es };
const storageKey = 'auditd.locale';

function initialLocale(): Locale {
  const browser = (navigator.languages ?? [navigator.language]).map(asLocale).find((l) => l !== null);
  return chosenLocale() ?? browser ?? 'en';
}

/** locale is the UI language; components that call t() re-render when it changes. */
export const locale = signal<Locale>(initialLocale());
document.documentElement.lang = locale.value;

/** chosenLocale is the language chosen in this browser, or null when none was. */
export function chosenLocale(): Locale | null {
  return asLocale(localStorage.getItem(storageKey) ?? '');
}

/** asLocale is the UI language of a BCP 47 tag ("es-MX" is es), or null for another language. */
export function asLocale(tag: string): Locale | null {
  const lang = tag.toLowerCase().split(/[-_]/)[0];
  return lang === 'en' || lang === 'es' ? lang : null;
}

/** followLocale switches the UI language without remembering it as this browser's choice. */
export function followLocale(l: Locale) {
  document.documentElement.lang = l;
  locale.value = l;
}

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

/** formatNumber shows a number in the current language with at most one decimal ("12,5" in Spanish). */
export function formatNumber(n: number): string {
  return new Intl.NumberFormat(locale.value, { maximumFractionDigits: 1 }).format(n);
}

/** formatBytes shows a size in bytes in the unit that suits it ("293 kB"). */
export function formatBytes(n: number): string {
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;
  let i = 0;
  while (n >= 1000 && i < units.length - 1) {
    n /= 1000;
    i++;
  }
  return new Intl.NumberFormat(locale.value, { style: 'unit', unit: units[i], unitDisplay: 'short', maximumFractionDigits: 1 }).format(n);
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

/** languageName is a BCP 47 tag's language as people read it in the current language ("inglés (en)"). */
export function languageName(tag: string): string {
  let name: string | undefined;
  try {
    name = new Intl.DisplayNames([locale.value], { type: 'language' }).of(tag.split('-')[0]);
  } catch {
    name = undefined; // not a tag the browser knows
  }
  return name && name !== tag ? `${name} (${tag})` : tag;
}

/** listOf joins items as a list in the current language ("a, b y c"). */
export function listOf(items: string[]): string {
  return new Intl.ListFormat(locale.value, { type: 'conjunction' }).format(items);
}

/** named is a value of a kind (role, category, job state…) as people read it, or the value itself when it has no translation. */
function named(kind: string, value: string): string {
  const key = `${kind}.${value}` as MessageKey;
  return key in en ? t(key) : value;
}

/** roleName is a role as people read it, in the current language. */
export const roleName = (role: string) => named('role', role);

/** categoryName is a scorecard category as people read it: the default scorecard's are translated, a campaign's own are shown as written. */
export const categoryName = (category: string) => named('category', category);

/** jobStateName is a background job's state as people read it. */
export const jobStateName = (state: string) => named('jobState', state);

/** engineName is the engine that wrote an audit ("rules", "llm:gpt-4o", "hybrid:gpt-4o") as people read it. */
export function engineName(engine: string): string {
  const [kind, model] = engine.split(/:(.*)/s);
  const key = `engine.${kind}` as MessageKey;
  return key in en ? t(key, { model: model ?? '' }) : engine;
}
