__all__ = ['ttypes', 'constants', 'Compute']
