// ESLint for the player (app/render/player.js): tests/test_lint.py runs it. Plain ES5 in a browser, strict mode.
import js from "@eslint/js";

export default [
  js.configs.recommended,
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 5,
      sourceType: "script",
      globals: {
        window: "readonly", document: "readonly", URLSearchParams: "readonly", JSON: "readonly", Math: "readonly",
        Date: "readonly", String: "readonly", Array: "readonly", parseFloat: "readonly", isFinite: "readonly"
      }
    },
    rules: {
      strict: ["error", "function"],
      "no-var": "off",
      eqeqeq: ["error", "always"],
      "no-implicit-globals": "error",
      "no-unused-vars": ["error", {args: "none"}],
      "no-shadow": "error",
      curly: ["error", "all"]
    }
  }
];
