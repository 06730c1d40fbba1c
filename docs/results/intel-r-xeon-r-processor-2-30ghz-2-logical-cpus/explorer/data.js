window.EXPLORER_DATA = {};
window.EXPLORER_FIGURES = {};
