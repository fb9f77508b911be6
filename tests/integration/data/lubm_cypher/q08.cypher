// LUBM Query 8: students who are members of a department of University0, with the department and their email.
MATCH (x:Student)-[:memberOf]->(y:Department)-[:subOrganizationOf]->(:Resource {uri: 'http://www.University0.edu'})
WHERE x.emailAddress IS NOT NULL
RETURN x AS X, y AS Y, x.emailAddress AS Z
