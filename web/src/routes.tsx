// The dashboard's screens. Adding one: a component, a title, the lowest
// role that may open it, and whether the navigation lists it. Paths live
// under /app so that they never collide with the API's.
import type { JSX } from 'preact';
import { CampaignsPage } from './admin/CampaignsPage';
import { CoachingItemPage, CoachingListPage } from './coaching/CoachingPages';
import { CalibrationListPage, CalibrationNewPage, CalibrationSessionPage } from './calibration/CalibrationPages';
import { JobsPage } from './admin/JobsPage';
import { PrivacyPage } from './admin/PrivacyPage';
import { UsersPage } from './admin/UsersPage';
import { IngestPage } from './admin/IngestPage';
import { WebhooksPage } from './admin/WebhooksPage';
import { DashboardPage } from './dashboard/DashboardPage';
import { DisputesPage } from './disputes/DisputesPage';
import { MyEvaluationsPage } from './disputes/MyEvaluationsPage';
import type { MessageKey } from './i18n';
import { NotificationsPage } from './notifications/NotificationsPage';
import { ProfilePage } from './pages/Profile';
import { ReportsPage } from './reports/ReportsPage';
import { MyReviewsPage } from './reviews/MyReviewsPage';
import { match } from './router';
import { TasksPage } from './tasks/TasksPage';
import { BulkActionPage, BulkActionsPage } from './tasks/BulkActionsPage';
import { TaskView } from './tasks/TaskView';
import { atLeast, type Role } from './types';

export interface Route {
  pattern: string;
  title: MessageKey;
  minRole: Role;
  /** nav lists the route in the main navigation or in the administration group. */
  nav?: 'main' | 'admin';
  /** navMaxRole, when set, is the highest role the navigation lists the route for (an agent's own pages). */
  navMaxRole?: Role;
  render: (params: Record<string, string>) => JSX.Element;
}

export const routes: Route[] = [
  { pattern: '/app/tasks', title: 'nav.tasks', minRole: 'operator', nav: 'main', render: () => <TasksPage /> },
  { pattern: '/app/tasks/:uuid', title: 'nav.tasks', minRole: 'operator', render: (p) => <TaskView uuid={p.uuid} /> },
  { pattern: '/app/dashboard', title: 'nav.dashboard', minRole: 'operator', nav: 'main', render: () => <DashboardPage /> },
  { pattern: '/app/reports', title: 'nav.reports', minRole: 'operator', nav: 'main', render: () => <ReportsPage /> },
  { pattern: '/app/profile', title: 'nav.profile', minRole: 'none', nav: 'main', render: () => <ProfilePage /> },
  { pattern: '/app/notifications', title: 'nav.notifications', minRole: 'none', nav: 'main', render: () => <NotificationsPage /> },
  {
    pattern: '/app/evaluations',
    title: 'nav.evaluations',
    minRole: 'operator',
    nav: 'main',
    navMaxRole: 'operator',
    render: () => <MyEvaluationsPage />,
  },
  { pattern: '/app/disputes', title: 'nav.disputes', minRole: 'operator', nav: 'main', render: () => <DisputesPage /> },
  { pattern: '/app/coaching', title: 'nav.coaching', minRole: 'operator', nav: 'main', render: () => <CoachingListPage /> },
  { pattern: '/app/coaching/:id', title: 'nav.coaching', minRole: 'operator', render: (p) => <CoachingItemPage id={p.id} /> },
  { pattern: '/app/calibration', title: 'nav.calibration', minRole: 'quality', nav: 'main', render: () => <CalibrationListPage /> },
  { pattern: '/app/calibration/new', title: 'nav.calibration', minRole: 'supervisor', render: () => <CalibrationNewPage /> },
  { pattern: '/app/calibration/:id', title: 'nav.calibration', minRole: 'quality', render: (p) => <CalibrationSessionPage id={p.id} /> },
  { pattern: '/app/admin/campaigns', title: 'nav.campaigns', minRole: 'supervisor', nav: 'admin', render: () => <CampaignsPage /> },
  { pattern: '/app/admin/users', title: 'nav.users', minRole: 'admin', nav: 'admin', render: () => <UsersPage /> },
  { pattern: '/app/admin/jobs', title: 'nav.jobs', minRole: 'admin', nav: 'admin', render: () => <JobsPage /> },
  { pattern: '/app/reviews', title: 'nav.reviews', minRole: 'quality', nav: 'main', render: () => <MyReviewsPage /> },
  { pattern: '/app/admin/privacy', title: 'nav.privacy', minRole: 'admin', nav: 'admin', render: () => <PrivacyPage /> },
  { pattern: '/app/admin/webhooks', title: 'nav.webhooks', minRole: 'admin', nav: 'admin', render: () => <WebhooksPage /> },
  { pattern: '/app/admin/ingest', title: 'nav.ingest', minRole: 'admin', nav: 'admin', render: () => <IngestPage /> },
  { pattern: '/app/bulk-actions', title: 'nav.bulkActions', minRole: 'quality', render: () => <BulkActionsPage /> },
  { pattern: '/app/bulk-actions/:id', title: 'nav.bulkActions', minRole: 'quality', render: (p) => <BulkActionPage id={p.id} /> },
];

/** resolve finds the route for path, with its params. */
export function resolve(path: string): { route: Route; params: Record<string, string> } | null {
  for (const route of routes) {
    const params = match(route.pattern, path);
    if (params) return { route, params };
  }
  return null;
}

/** home is where "/" leads: the first screen in the navigation that role may open. */
export function home(role: Role): string {
  return routes.find((r) => r.nav && atLeast(role, r.minRole))?.pattern ?? '/app/profile';
}
