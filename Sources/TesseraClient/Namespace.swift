enum TesseraClientNamespace {}
