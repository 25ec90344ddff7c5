"""skftl: reproducible flash-translation-layer and storage-media research toolkit."""

__version__ = "0.1.0"
