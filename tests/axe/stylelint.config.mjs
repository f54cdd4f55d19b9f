// Stylelint for every stylesheet (app/render/css/*.css): tests/test_lint.py runs it. The standard rules, less the
// ones about naming and notation that the sheets do not follow on purpose (gradio's ids, rgba() as written).
export default {
  extends: ["stylelint-config-standard"],
  rules: {
    "selector-id-pattern": null,
    "selector-class-pattern": null,
    "color-function-notation": null,
    "color-function-alias-notation": null,
    "alpha-value-notation": null,
    "color-hex-length": null,
    "declaration-block-single-line-max-declarations": null,
    "rule-empty-line-before": null,
    "comment-empty-line-before": null,
    "no-descending-specificity": null,
    "declaration-empty-line-before": null,
    "media-feature-range-notation": null,
    "shorthand-property-no-redundant-values": null,
    "number-max-precision": null,
    "font-family-name-quotes": null,
    "value-keyword-case": null,
    "declaration-no-important": null,
    "keyframes-name-pattern": null,
    "property-no-vendor-prefix": null
  }
};
