window.EXPLORER_DATA = {};
