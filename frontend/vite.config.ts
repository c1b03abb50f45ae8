import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The built UI is embedded in the Go binary (frontend/embed.go), so assets use
// relative paths and the dev server proxies the API to a running `docent --serve`.
export default defineConfig({
  plugins: [react()],
  base: "./",
  build: { outDir: "dist", emptyOutDir: true },
  server: { proxy: { "/api": "http://127.0.0.1:8765" } },
});
