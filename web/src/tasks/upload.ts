// Uploading one file with its upload progress: fetch cannot report the
// bytes sent, XMLHttpRequest can. One request per file, so each file has
// its own bar and its own outcome.
import { ApiError } from '../api';
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
  if (fields.campaign.trim()) form.set('campaign', fields.campaign.trim());
  if (fields.operator.trim()) form.set('operator', fields.operator.trim());
  if (fields.language.trim()) form.set('language', fields.language.trim());
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
      let body: { success?: boolean; details?: { tasks?: UploadedTask[] }; message?: string; code?: string; request_id?: string } = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: reported below by status
      }
      const task = body.details?.tasks?.[0];
      if (body.success && task) return resolve(task);
      if (typeof body.message === 'string') {
        return reject(new ApiError(body.message, body.code ?? 'HTTP_ERROR', xhr.status, [], body.request_id));
      }
      reject(new ApiError(t('error.http', { status: xhr.status }), 'HTTP_ERROR', xhr.status));
    };
    xhr.send(form);
  });
}
