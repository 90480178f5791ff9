/**
 * notificationHref is where a notification's link may take the reader: a
 * path of the dashboard (the service's links are paths below its prefix,
 * /tasks/…, as e-mails link to them) or an http(s) address; null for
 * anything else (javascript:, data:, //host…), which is shown as plain
 * text, never as a link.
 */
export function notificationHref(link: string): { href: string; internal: boolean } | null {
  if (link.startsWith('/') && !link.startsWith('//') && !link.startsWith('/\\')) {
    return { href: link.startsWith('/app/') ? link : `/app${link}`, internal: true };
  }
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') {
    return null;
  }
  return { href: url.href, internal: false };
}
