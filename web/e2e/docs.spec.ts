import { expect, test, shot } from './fixtures';

test('API documentation: Swagger UI and Redoc render every operation offline', async ({ page, base }) => {
  await page.goto(base + '/docs');
  await expect(page.getByText('Upload calls and chats').first()).toBeVisible();
  await expect(page.getByText('Validate an audit and e-mail its result').first()).toBeVisible();
  await shot(page, 'docs-swagger', { ours: false });
  // Redoc 3 lists each tag's operations by path, rendering tags as they
  // come into view (the side menu leads there), in the document's order of
  // tags: the work of a QA team first, administration last.
  await page.goto(base + '/redoc');
  await expect(page.getByText('/tasks/upload', { exact: true }).first()).toBeVisible();
  await expect(page.getByText('Upload calls and chats, list and search them').first()).toBeVisible();
  await shot(page, 'docs-redoc', { ours: false });
  await page.getByText('audits', { exact: true }).first().click();
  await expect(page.getByText('/compute-audit-results', { exact: true }).first()).toBeVisible();
  await page.getByText('admin', { exact: true }).first().click();
  await expect(page.getByText('/admin/riverui/session', { exact: true }).first()).toBeVisible();
});
