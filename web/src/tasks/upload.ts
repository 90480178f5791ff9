// Uploading one file with its upload progress: fetch cannot report the
// bytes sent, XMLHttpRequest can. One request per file, so each file has
// its own bar and its own outcome.
import { ApiError, failureOf, successOf } from '../api';
import { t } from '../i18n';
import type { UploadedTask } from '../types';

export interface UploadFields {
  campaign: string;
  operator: string;
  language: string;
}

/** uploadFile sends file to POST /tasks/upload, calling onProgress with the fraction sent; it rejects with an ApiError. */
export function uploadFile(token: string, file: File, fields: UploadFields, onProgress: (sent: number) => void): Promise<UploadedTask> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) if (v.trim()) form.set(k, v.trim());
  form.append('files', file, file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/tasks/upload');
    xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(t('error.network'), 'NETWORK_ERROR', 0));
    xhr.onload = () => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: reported by status
      }
      const task = successOf<{ tasks?: UploadedTask[] }>(xhr.status, parsed)?.details?.tasks?.[0];
      if (task) resolve(task);
      else reject(failureOf(xhr.status, parsed, xhr.getResponseHeader('X-Request-Id')));
    };
    xhr.send(form);
  });
}
