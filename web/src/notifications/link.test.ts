import { describe, expect, it } from 'vitest';
import { notificationHref } from './link';

describe('notificationHref', () => {
  it('takes the dashboard paths and http(s) addresses', () => {
    expect(notificationHref('/tasks/42')).toEqual({ href: '/app/tasks/42', internal: true });
    expect(notificationHref('/app/tasks/42')).toEqual({ href: '/app/tasks/42', internal: true });
    expect(notificationHref('https://wiki.example.test/qa')).toEqual({
      href: 'https://wiki.example.test/qa',
      internal: false,
    });
  });

  it('refuses every other scheme and protocol-relative addresses', () => {
    for (const link of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:x',
      '//evil.example.test/x',
      '/\\evil.example.test',
      'mailto:a@b.test',
      'tasks/42',
    ]) {
      expect(notificationHref(link), link).toBeNull();
    }
  });
});
