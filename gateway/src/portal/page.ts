import type { Express } from "express";

/** `GET /portal/<token>`: a placeholder until the web app serves the customer's page. */
export function mountPortalPage(app: Express): void {
  app.get("/portal/:token", (_req, res) => {
    res
      .type("html")
      .send(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your portal</title></head><body><main><h1>Your portal</h1><p>This page is being prepared.</p></main></body></html>',
      );
  });
}
