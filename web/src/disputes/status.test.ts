import { describe, expect, it } from 'vitest';
import { statusKey, verdictKey } from './status';

const item = (decision?: 'accept' | 'reject') => ({
  criterion_id: 'c',
  category: 'C',
  question: 'q',
  complies: false,
  comment: 'x',
  decision,
});

describe('statusKey', () => {
  it('says partly accepted when one criterion was accepted and another rejected', () => {
    expect(statusKey({ status: 'accepted', items: [item('accept'), item('reject')] })).toBe('dispute.status.partly');
  });
  it('keeps the status otherwise', () => {
    expect(statusKey({ status: 'accepted', items: [item('accept'), item('accept')] })).toBe('dispute.status.accepted');
    expect(statusKey({ status: 'rejected', items: [item('reject')] })).toBe('dispute.status.rejected');
    expect(statusKey({ status: 'open', items: [item(), item()] })).toBe('dispute.status.open');
  });
});

describe('verdictKey', () => {
  it('names a verdict met, not met or not applicable', () => {
    expect(verdictKey({ complies: true })).toBe('dispute.verdict.met');
    expect(verdictKey({ complies: false })).toBe('dispute.verdict.notMet');
    expect(verdictKey({ complies: true, not_applicable: true })).toBe('dispute.verdict.na');
  });
});
